/* The relocatable bundle's data paths (scripts/bundle.sh builds this file into
 * lib/libtreelens-bundle.so, a DT_NEEDED of bin/treelens-cli and of the Python module).
 *
 * Two things of the bundle cannot be found relative to the executable by the code itself:
 *  - Link Grammar's English dictionary: liblink-grammar looks only in the current directory
 *    (./en, ./data/en, ../en, ../data/en) and in its compiled-in /usr/share/link-grammar, and
 *    reads no environment variable; dictionary_set_data_dir() is its only other way in.
 *  - the shipped models for the Python module: core finds them beside /proc/self/exe, which
 *    for Python is the interpreter, or in TREELENS_MODEL_DIR.
 * When the library is loaded (before main, or at `import treelens`), this constructor
 * finds its own file (dladdr) and, from the bundle's root (LIB/..):
 *  - points Link Grammar at ROOT/share/link-grammar when ROOT/share/link-grammar/en exists;
 *  - sets TREELENS_MODEL_DIR to ROOT/share/treelens/models when it is not set already
 *    (a user's own TREELENS_MODEL_DIR wins) and that folder exists.
 * Once core calls dictionary_set_data_dir() itself and finds the models beside its own
 * shared object, this file and its DT_NEEDED entry can go (docs/cluster.md, "The bundle").
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <link-grammar/link-includes.h>

static int is_dir(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

/* DIR + "/" + NAME into OUT (PATH_MAX bytes); 0 when it does not fit. */
static int join(char *out, const char *dir, const char *name)
{
    size_t a = strlen(dir), b = strlen(name);
    if (a + 1 + b + 1 > PATH_MAX)
        return 0;
    memcpy(out, dir, a);
    out[a] = '/';
    memcpy(out + a + 1, name, b + 1);
    return 1;
}

__attribute__((constructor)) static void treelens_bundle_paths(void)
{
    Dl_info info;
    char root[PATH_MAX], dict[PATH_MAX], path[PATH_MAX];
    if (!dladdr((void *)&treelens_bundle_paths, &info) || !info.dli_fname || !realpath(info.dli_fname, root))
        return;
    /* ROOT/lib/libtreelens-bundle.so -> ROOT */
    for (int up = 0; up < 2; ++up) {
        char *slash = strrchr(root, '/');
        if (!slash)
            return;
        *slash = '\0';
    }
    if (join(dict, root, "share/link-grammar") && join(path, dict, "en") && is_dir(path))
        dictionary_set_data_dir(dict);
    if (!getenv("TREELENS_MODEL_DIR") && join(path, root, "share/treelens/models") && is_dir(path))
        setenv("TREELENS_MODEL_DIR", path, 0);
}
