#pragma once
/// \file childprocess.h
/// A child process spoken to in lines over its stdin/stdout (bench_speed's
/// official-code worker). POSIX only; the benchmark's own helper.

#include <csignal>
#include <cstdio>
#include <string>
#include <vector>

#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

namespace treelens::bench {

class ChildProcess {
public:
    ChildProcess() = default;
    ChildProcess(const ChildProcess &) = delete;
    ChildProcess &operator=(const ChildProcess &) = delete;
    ~ChildProcess() { stop(); }

    /// Starts argv[0] (looked up in PATH) with extra environment entries "NAME=value".
    /// stderr is inherited. False (and `error` set) when it could not start.
    bool start(const std::vector<std::string> &argv, const std::vector<std::string> &env, std::string &error)
    {
        int in[2], out[2];
        if (pipe(in) != 0 || pipe(out) != 0) {
            error = "pipe failed";
            return false;
        }
        m_pid = fork();
        if (m_pid < 0) {
            error = "fork failed";
            return false;
        }
        if (m_pid == 0) {
            dup2(in[0], 0);
            dup2(out[1], 1);
            close(in[0]);
            close(in[1]);
            close(out[0]);
            close(out[1]);
            for (const auto &e : env)
                putenv(const_cast<char *>(e.c_str()));
            std::vector<char *> args;
            for (const auto &a : argv)
                args.push_back(const_cast<char *>(a.c_str()));
            args.push_back(nullptr);
            execvp(args[0], args.data());
            std::fprintf(stderr, "cannot run %s\n", args[0]);
            _exit(127);
        }
        close(in[0]);
        close(out[1]);
        m_in = fdopen(in[1], "w");
        m_out = fdopen(out[0], "r");
        return m_in && m_out;
    }

    /// Writes one line (a newline is added) and reads one reply line; false at EOF.
    bool request(const std::string &line, std::string &reply)
    {
        if (!m_in || !m_out)
            return false;
        if (std::fputs(line.c_str(), m_in) < 0 || std::fputc('\n', m_in) < 0 || std::fflush(m_in) != 0)
            return false;
        return readLine(reply);
    }

    bool readLine(std::string &reply)
    {
        reply.clear();
        for (int c; (c = std::fgetc(m_out)) != EOF;) {
            if (c == '\n')
                return true;
            reply.push_back(static_cast<char>(c));
        }
        return !reply.empty();
    }

    void stop()
    {
        if (m_in) {
            std::fputs("{\"cmd\": \"quit\"}\n", m_in);
            std::fclose(m_in);
            m_in = nullptr;
        }
        if (m_out) {
            std::fclose(m_out);
            m_out = nullptr;
        }
        if (m_pid > 0) {
            int status = 0;
            waitpid(m_pid, &status, 0);
            m_pid = -1;
        }
    }

private:
    pid_t m_pid = -1;
    std::FILE *m_in = nullptr;
    std::FILE *m_out = nullptr;
};

} // namespace treelens::bench
