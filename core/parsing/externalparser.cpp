#include "core/parsing/externalparser.h"

#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <spawn.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/formats/conllu.h"

extern char **environ;

namespace treelens {

namespace {

constexpr std::size_t kStderrKeep = 64 * 1024;

/// Closes a descriptor once; -1 means closed.
void closeFd(int &fd)
{
    if (fd >= 0) {
        ::close(fd);
        fd = -1;
    }
}

/// write() that cannot raise SIGPIPE in this process: a command that exits without
/// reading its input must give an EPIPE, not kill the application. SIGPIPE for a
/// pipe write is directed at the writing thread, so blocking it for this thread and
/// consuming the one we caused (if it was not pending before) is enough.
ssize_t writeNoSigpipe(int fd, const char *data, std::size_t size)
{
    sigset_t pipeSet, old, pending;
    sigemptyset(&pipeSet);
    sigaddset(&pipeSet, SIGPIPE);
    sigemptyset(&pending);
    sigpending(&pending);
    const bool wasPending = sigismember(&pending, SIGPIPE) == 1;
    pthread_sigmask(SIG_BLOCK, &pipeSet, &old);
    const ssize_t n = ::write(fd, data, size);
    const int err = errno;
    if (n < 0 && err == EPIPE && !wasPending) {
        const struct timespec zero{0, 0};
        while (sigtimedwait(&pipeSet, nullptr, &zero) < 0 && errno == EINTR) {
        }
    }
    pthread_sigmask(SIG_SETMASK, &old, nullptr);
    errno = err;
    return n;
}

std::string formatSeconds(double s)
{
    char buf[32];
    if (std::fabs(s - std::round(s)) < 1e-9)
        std::snprintf(buf, sizeof buf, "%.0f", s);
    else
        std::snprintf(buf, sizeof buf, "%g", s);
    return buf;
}

std::string lastLine(const std::string &text)
{
    std::size_t end = text.size();
    while (true) {
        while (end > 0 && (text[end - 1] == '\n' || text[end - 1] == '\r' || text[end - 1] == ' ' || text[end - 1] == '\t'))
            --end;
        if (end == 0)
            return {};
        const auto nl = text.rfind('\n', end - 1);
        const std::size_t begin = nl == std::string::npos ? 0 : nl + 1;
        std::string line = text.substr(begin, end - begin);
        if (line.size() > 300)
            line = line.substr(0, 300) + "...";
        return line;
    }
}

/// The command as named in messages (long command lines are cut).
std::string shown(const std::string &command)
{
    return command.size() > 120 ? command.substr(0, 117) + "..." : command;
}

class ExternalParser : public Parser {
public:
    explicit ExternalParser(ParserConfig config) : m_config(std::move(config)) {}

    ParserInfo info() const override { return externalParserInfo(); }

    Result<Sentence> parse(const Sentence &input) override
    {
        const std::string cmd = "'" + shown(m_config.command) + "'";
        const std::size_t n = input.tokens.size();
        if (n == 0)
            return Error{"external parser: sentence '" + input.id + "' has no tokens"};
        if (n > static_cast<std::size_t>(m_config.maxWords))
            return Error{"external parser: sentence '" + input.id + "' has " + std::to_string(n) + " words; the limit is "
                         + std::to_string(m_config.maxWords)};
        std::string line;
        for (std::size_t i = 0; i < n; ++i) {
            if (i)
                line += ' ';
            const std::string &t = input.tokens[i].text;
            if (t.empty()) {
                line += '_';
                continue;
            }
            for (char c : t)
                line += (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v') ? '_' : c;
        }
        line += '\n';

        auto run = runShellCommand(m_config.command, line, {"TREELENS_INPUT_FORMAT=tokens"}, m_config.timeoutSeconds);
        if (!run)
            return Error{"external parser: " + run.message(), run.code()};
        const CommandOutput &r = *run;
        const std::string errLine = lastLine(r.err);
        if (r.timedOut)
            return Error{"external parser: no output within " + formatSeconds(m_config.timeoutSeconds) + " s from " + cmd};
        if (r.signal != 0)
            return Error{"external parser: " + cmd + " was killed by signal " + std::to_string(r.signal)
                         + (errLine.empty() ? std::string() : ": " + errLine)};
        if (r.exitStatus == 127)
            return Error{"external parser: command not found: " + shown(m_config.command)
                         + (errLine.empty() ? std::string() : " (" + errLine + ")")};
        if (r.exitStatus != 0)
            return Error{"external parser: " + cmd + " exited with status " + std::to_string(r.exitStatus) + ": "
                         + (errLine.empty() ? std::string("(nothing on stderr)") : errLine)};

        ConlluReadOptions opt;
        opt.alignOffsets = false;
        opt.validateTrees = true;
        auto parsed = readConllu(r.out, "output", opt);
        if (!parsed)
            return Error{"external parser: " + cmd + " did not write valid CoNLL-U: " + parsed.message(), parsed.code()};
        if (parsed->size() != 1)
            return Error{"external parser: " + cmd + " returned " + std::to_string(parsed->size()) + " sentences for one"
                         + (parsed->empty() && !errLine.empty() ? " (stderr: " + errLine + ")" : std::string())};
        const Sentence &o = parsed->front();
        if (o.tokens.size() != n)
            return Error{"external parser: " + cmd + " returned " + std::to_string(o.tokens.size()) + " words for "
                         + std::to_string(n) + " tokens (it must keep the tokenisation: one word per input token)"};
        if (!o.dependency)
            return Error{"external parser: " + cmd + " returned no dependency tree (HEAD is '_')"};
        const Status valid = o.dependency->validate();
        if (!valid.ok())
            return Error{"external parser: " + cmd + " returned an invalid tree: " + valid.message(), valid.code()};

        Sentence out = input;
        out.dependency = o.dependency;
        for (std::size_t i = 0; i < n; ++i) {
            const Token &t = o.tokens[i];
            if (t.upos != "_")
                out.tokens[i].upos = t.upos;
            if (t.xpos != "_")
                out.tokens[i].xpos = t.xpos;
        }
        out.setMetadata("parser", "external");
        return out;
    }

private:
    ParserConfig m_config;
};

} // namespace

namespace {

using Clock = std::chrono::steady_clock;

/// The command's time limit: none when not `limited`.
struct Deadline {
    bool limited = false;
    Clock::time_point at;

    bool passed(Clock::time_point now) const { return limited && now >= at; }
};

/// Our side of a started command: its process id (the leader of its own group),
/// our ends of its three pipes (-1 once closed), and its wait status once reaped.
struct ChildProcess {
    pid_t pid = -1;
    int inFd = -1, outFd = -1, errFd = -1;
    bool reaped = false;
    int status = 0;
};

/// Our environment, with `environment` entries ("NAME=value") replacing same-named ones.
std::vector<std::string> mergedEnvironment(const std::vector<std::string> &environment)
{
    std::vector<std::string> envStore;
    for (char **e = environ; e && *e; ++e) {
        const std::string entry = *e;
        const auto eq = entry.find('=');
        bool replaced = false;
        for (const auto &x : environment)
            if (eq != std::string::npos && x.compare(0, eq + 1, entry, 0, eq + 1) == 0)
                replaced = true;
        if (!replaced)
            envStore.push_back(entry);
    }
    for (const auto &x : environment)
        envStore.push_back(x);
    return envStore;
}

/// Starts `/bin/sh -c command` in its own process group with pipes for its
/// stdin, stdout and stderr; our ends are non-blocking.
Result<ChildProcess> spawnShell(const std::string &command, const std::vector<std::string> &environment)
{
    int inPipe[2] = {-1, -1}, outPipe[2] = {-1, -1}, errPipe[2] = {-1, -1};
    // O_CLOEXEC: a process spawned concurrently by another thread must not inherit
    // our ends (it would keep the pipes open and hide the end of file).
    if (::pipe2(inPipe, O_CLOEXEC) != 0 || ::pipe2(outPipe, O_CLOEXEC) != 0 || ::pipe2(errPipe, O_CLOEXEC) != 0) {
        const int e = errno;
        for (int *p : {inPipe, outPipe, errPipe}) {
            closeFd(p[0]);
            closeFd(p[1]);
        }
        return Error{std::string("cannot create pipes: ") + std::strerror(e)};
    }

    std::vector<std::string> envStore = mergedEnvironment(environment);
    std::vector<char *> envp;
    for (auto &s : envStore)
        envp.push_back(s.data());
    envp.push_back(nullptr);
    std::string shell = "/bin/sh", dashC = "-c", cmd = command;
    char *argv[] = {shell.data(), dashC.data(), cmd.data(), nullptr};

    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_adddup2(&fa, inPipe[0], 0);
    posix_spawn_file_actions_adddup2(&fa, outPipe[1], 1);
    posix_spawn_file_actions_adddup2(&fa, errPipe[1], 2);
    posix_spawnattr_t attr;
    posix_spawnattr_init(&attr);
    // Own process group (so a timeout kills the command's children too), an empty
    // signal mask and default dispositions for signals the host may ignore.
    posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
    posix_spawnattr_setpgroup(&attr, 0);
    sigset_t none, defaults;
    sigemptyset(&none);
    posix_spawnattr_setsigmask(&attr, &none);
    sigemptyset(&defaults);
    for (int s : {SIGPIPE, SIGINT, SIGQUIT, SIGTERM, SIGHUP, SIGCHLD})
        sigaddset(&defaults, s);
    posix_spawnattr_setsigdefault(&attr, &defaults);

    ChildProcess child;
    const int rc = posix_spawn(&child.pid, "/bin/sh", &fa, &attr, argv, envp.data());
    posix_spawn_file_actions_destroy(&fa);
    posix_spawnattr_destroy(&attr);
    closeFd(inPipe[0]);
    closeFd(outPipe[1]);
    closeFd(errPipe[1]);
    if (rc != 0) {
        closeFd(inPipe[1]);
        closeFd(outPipe[0]);
        closeFd(errPipe[0]);
        return Error{std::string("cannot start /bin/sh: ") + std::strerror(rc)};
    }
    child.inFd = inPipe[1];
    child.outFd = outPipe[0];
    child.errFd = errPipe[0];
    for (int fd : {child.inFd, child.outFd, child.errFd})
        ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) | O_NONBLOCK);
    return child;
}

/// Feeds `input` to the command and collects its stdout and stderr (stderr's
/// tail only) until both are at end of file, the deadline passes (timedOut),
/// or the command was reaped and its pipes stayed open 200 ms longer (something
/// it started holds them). Returns why it stopped early ("" = it did not): a
/// failed poll, or more than `maxOutputBytes` of output.
std::string exchange(ChildProcess &child, const std::string &input, const std::string &command, const Deadline &deadline,
                     std::size_t maxOutputBytes, CommandOutput &result)
{
    std::size_t written = 0;
    if (input.empty())
        closeFd(child.inFd);
    Clock::time_point drainUntil{};
    std::string failure;
    char buf[65536];
    while (child.outFd >= 0 || child.errFd >= 0) {
        const auto now = Clock::now();
        if (deadline.passed(now)) {
            result.timedOut = true;
            break;
        }
        if (child.reaped && now >= drainUntil)
            break; // the command is gone but something it started still holds the pipes
        int waitMs = 100;
        if (deadline.limited)
            waitMs = static_cast<int>(std::min<long long>(
                waitMs, std::chrono::duration_cast<std::chrono::milliseconds>(deadline.at - now).count() + 1));
        pollfd fds[3];
        nfds_t count = 0;
        if (child.inFd >= 0)
            fds[count++] = {child.inFd, POLLOUT, 0};
        if (child.outFd >= 0)
            fds[count++] = {child.outFd, POLLIN, 0};
        if (child.errFd >= 0)
            fds[count++] = {child.errFd, POLLIN, 0};
        const int pr = ::poll(fds, count, waitMs);
        if (pr < 0 && errno != EINTR) {
            failure = std::string("poll failed: ") + std::strerror(errno);
            break;
        }
        for (nfds_t k = 0; pr > 0 && k < count; ++k) {
            const int fd = fds[k].fd;
            if (fds[k].revents == 0)
                continue;
            if (fd == child.inFd) {
                const ssize_t w = writeNoSigpipe(child.inFd, input.data() + written, input.size() - written);
                if (w > 0) {
                    written += static_cast<std::size_t>(w);
                    if (written == input.size())
                        closeFd(child.inFd); // end of file for the command
                } else if (w < 0 && errno != EAGAIN && errno != EINTR) {
                    closeFd(child.inFd); // EPIPE: the command does not read its input
                }
                continue;
            }
            const ssize_t got = ::read(fd, buf, sizeof buf);
            if (got > 0) {
                if (fd == child.outFd) {
                    result.out.append(buf, static_cast<std::size_t>(got));
                    if (result.out.size() > maxOutputBytes) {
                        failure = "'" + shown(command) + "' wrote more than " + std::to_string(maxOutputBytes >> 20) + " MiB";
                        break;
                    }
                } else {
                    result.err.append(buf, static_cast<std::size_t>(got));
                    if (result.err.size() > 2 * kStderrKeep)
                        result.err.erase(0, result.err.size() - kStderrKeep);
                }
            } else if (got == 0 || (errno != EAGAIN && errno != EINTR)) {
                if (fd == child.outFd)
                    closeFd(child.outFd);
                else
                    closeFd(child.errFd);
            }
        }
        if (!failure.empty())
            break;
        if (!child.reaped) {
            const pid_t w = ::waitpid(child.pid, &child.status, WNOHANG);
            if (w == child.pid) {
                child.reaped = true;
                drainUntil = Clock::now() + std::chrono::milliseconds(200);
            }
        }
    }
    return failure;
}

/// Closes our pipe ends and reaps the command: its whole process group is
/// killed first when it timed out, `failed`, or left something holding the
/// pipes; a command that closed its output is waited for within the deadline.
void endCommand(ChildProcess &child, bool failed, const Deadline &deadline, CommandOutput &result)
{
    // The command exited but something it started still holds the pipes open.
    const bool leftovers = child.reaped && (child.outFd >= 0 || child.errFd >= 0);
    closeFd(child.inFd);
    closeFd(child.outFd);
    closeFd(child.errFd);
    bool killGroup = result.timedOut || failed || leftovers;
    if (!killGroup && !child.reaped) {
        // Both pipes at end of file: the command is exiting (or closed its output
        // and goes on working); wait for it within the time limit.
        while (true) {
            const pid_t w = ::waitpid(child.pid, &child.status, WNOHANG);
            if (w == child.pid || (w < 0 && errno != EINTR)) {
                child.reaped = true;
                break;
            }
            if (deadline.passed(Clock::now())) {
                result.timedOut = true;
                killGroup = true;
                break;
            }
            ::usleep(2000);
        }
    }
    if (killGroup)
        ::kill(-child.pid, SIGKILL); // the group outlives a reaped leader while members remain
    if (!child.reaped) {
        while (::waitpid(child.pid, &child.status, 0) < 0 && errno == EINTR) {
        }
    }
}

} // namespace

Result<CommandOutput> runShellCommand(const std::string &command, const std::string &input,
                                      const std::vector<std::string> &environment, double timeoutSeconds,
                                      std::size_t maxOutputBytes)
{
    auto child = spawnShell(command, environment);
    if (!child)
        return child.error();
    CommandOutput result;
    Deadline deadline;
    deadline.limited = timeoutSeconds > 0;
    deadline.at = Clock::now() + std::chrono::duration_cast<Clock::duration>(
                                     std::chrono::duration<double>(deadline.limited ? timeoutSeconds : 0.0));
    const std::string failure = exchange(*child, input, command, deadline, maxOutputBytes, result);
    endCommand(*child, !failure.empty(), deadline, result);
    if (!failure.empty())
        return Error{failure};
    const int status = child->status;
    if (WIFEXITED(status)) {
        result.exitStatus = WEXITSTATUS(status);
    } else if (WIFSIGNALED(status)) {
        result.exitStatus = -1;
        result.signal = WTERMSIG(status);
    }
    if (result.err.size() > kStderrKeep)
        result.err.erase(0, result.err.size() - kStderrKeep);
    return result;
}

Result<std::unique_ptr<Parser>> createExternalParser(const ParserConfig &config)
{
    if (config.command.empty())
        return Error{"external parser: no command given (ParserConfig::command, e.g. \"python3 my_parser.py\")"};
    return std::unique_ptr<Parser>(new ExternalParser(config));
}

ParserInfo externalParserInfo()
{
    ParserInfo i{"external", true, false,
                 "runs an external command: one line of space-separated tokens on stdin, CoNLL-U on stdout"};
    i.tags = true; // the command's UPOS/XPOS replace the input's where it gives them
    return i;
}

} // namespace treelens
