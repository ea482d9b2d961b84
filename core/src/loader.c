/* dlopen-based plugin loading with checks that name the file. */
#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "seam/loader.h"
#include "seam/log.h"

#ifndef SEAM_BUILD_PLUGIN_DIRS
#define SEAM_BUILD_PLUGIN_DIRS ""
#endif
#ifndef SEAM_PLUGIN_INSTALL_DIR
#define SEAM_PLUGIN_INSTALL_DIR ""
#endif

struct seam_library {
    void *handle;
    const seam_plugin *plugin;
    char *path;
};

static bool is_path(const char *s)
{
    size_t n = strlen(s);
    return strchr(s, '/') || (n > 3 && strcmp(s + n - 3, ".so") == 0);
}

static bool file_exists(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

#define MAX_DIRS 64
static char *search_dirs[MAX_DIRS];
static size_t n_search_dirs;

static void add_dirs(const char *list)
{
    char *copy = strdup(list);
    char *save = NULL;
    for (char *d = strtok_r(copy, ":", &save); d && n_search_dirs < MAX_DIRS; d = strtok_r(NULL, ":", &save))
        if (*d)
            search_dirs[n_search_dirs++] = strdup(d);
    free(copy);
}

size_t seam_plugin_search_path(const char ***dirs)
{
    for (size_t i = 0; i < n_search_dirs; i++)
        free(search_dirs[i]);
    n_search_dirs = 0;
    add_dirs(SEAM_BUILD_PLUGIN_DIRS);
    add_dirs(SEAM_PLUGIN_INSTALL_DIR);
    const char *env = getenv("SEAM_PLUGIN_PATH");
    if (env)
        add_dirs(env);
    *dirs = (const char **)search_dirs;
    return n_search_dirs;
}

static const char *const required_names[] = {"create", "destroy", "max_dt", "solve", "commit"};

static int check_table(const seam_plugin *p, const char *path, char *err, size_t errlen)
{
    if (p->abi != SEAM_ABI_VERSION) {
        snprintf(err, errlen, "%s: plugin ABI version %u, but this seam speaks ABI version %u",
                 path, p->abi, SEAM_ABI_VERSION);
        return -1;
    }
    const void *fns[] = {(const void *)p->create, (const void *)p->destroy, (const void *)p->max_dt,
                         (const void *)p->solve, (const void *)p->commit};
    for (size_t i = 0; i < sizeof fns / sizeof fns[0]; i++)
        if (!fns[i]) {
            snprintf(err, errlen, "%s: plugin \"%s\" leaves the required function %s NULL", path,
                     p->name ? p->name : "?", required_names[i]);
            return -1;
        }
    if (!p->name || !*p->name) {
        snprintf(err, errlen, "%s: plugin has no name", path);
        return -1;
    }
    if (p->role != SEAM_FLUID && p->role != SEAM_SOLID && p->role != SEAM_COUPLED) {
        snprintf(err, errlen, "%s: plugin \"%s\" has unknown role %d", path, p->name, (int)p->role);
        return -1;
    }
    return 0;
}

static seam_library *open_path(const char *path, char *err, size_t errlen)
{
    if (!file_exists(path)) {
        snprintf(err, errlen, "%s: no such plugin file", path);
        return NULL;
    }
    void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        const char *why = dlerror();
        snprintf(err, errlen, "%s: cannot load as a shared library: %s", path, why ? why : "unknown error");
        return NULL;
    }
    dlerror();
    seam_plugin_entry entry;
    *(void **)&entry = dlsym(h, SEAM_PLUGIN_SYMBOL);
    if (!entry) {
        snprintf(err, errlen, "%s: not a seam plugin: it does not export %s()", path, SEAM_PLUGIN_SYMBOL);
        dlclose(h);
        return NULL;
    }
    const seam_plugin *p = entry();
    if (!p) {
        snprintf(err, errlen, "%s: %s() returned NULL", path, SEAM_PLUGIN_SYMBOL);
        dlclose(h);
        return NULL;
    }
    if (check_table(p, path, err, errlen) != 0) {
        dlclose(h);
        return NULL;
    }
    seam_library *lib = calloc(1, sizeof *lib);
    lib->handle = h;
    lib->plugin = p;
    lib->path = strdup(path);
    return lib;
}

seam_library *seam_library_open(const char *name_or_path, char *err, size_t errlen)
{
    if (is_path(name_or_path))
        return open_path(name_or_path, err, errlen);
    const char **dirs;
    size_t n = seam_plugin_search_path(&dirs);
    char path[4096];
    for (size_t i = 0; i < n; i++) {
        snprintf(path, sizeof path, "%s/%s.so", dirs[i], name_or_path);
        if (file_exists(path))
            return open_path(path, err, errlen);
    }
    int len = snprintf(err, errlen, "plugin \"%s\" not found; searched %s.so in:", name_or_path, name_or_path);
    for (size_t i = 0; i < n && len > 0 && (size_t)len < errlen; i++)
        len += snprintf(err + len, errlen - (size_t)len, " %s", dirs[i]);
    if (n == 0 && len > 0 && (size_t)len < errlen)
        snprintf(err + len, errlen - (size_t)len, " (no directories; set SEAM_PLUGIN_PATH)");
    return NULL;
}

void seam_library_close(seam_library **self_p)
{
    if (!self_p || !*self_p)
        return;
    seam_library *lib = *self_p;
    if (lib->handle)
        dlclose(lib->handle);
    free(lib->path);
    free(lib);
    *self_p = NULL;
}

const seam_plugin *seam_library_plugin(const seam_library *self) { return self->plugin; }
const char *seam_library_path(const seam_library *self) { return self->path; }

int seam_plugin_check_role(const seam_plugin *p, const char *path, seam_role want,
                           const char *where, char *err, size_t errlen)
{
    if (p->role != want) {
        snprintf(err, errlen, "%s: plugin \"%s\" is a %s solver, but %s needs a %s solver", path,
                 p->name, seam_role_name(p->role), where, seam_role_name(want));
        return -1;
    }
    if (want == SEAM_SOLID && !p->describe) {
        snprintf(err, errlen, "%s: solid plugin \"%s\" leaves the required function describe NULL", path, p->name);
        return -1;
    }
    if (want == SEAM_FLUID && !p->bind) {
        snprintf(err, errlen, "%s: fluid plugin \"%s\" leaves the required function bind NULL", path, p->name);
        return -1;
    }
    return 0;
}

void seam_plugin_scan(seam_plugin_visit fn, void *ctx)
{
    const char **dirs;
    size_t n = seam_plugin_search_path(&dirs);
    char **seen = NULL;
    size_t n_seen = 0;
    for (size_t i = 0; i < n; i++) {
        DIR *d = opendir(dirs[i]);
        if (!d)
            continue;
        struct dirent *e;
        while ((e = readdir(d))) {
            size_t len = strlen(e->d_name);
            if (len < 4 || strcmp(e->d_name + len - 3, ".so") != 0)
                continue;
            bool dup = false;
            for (size_t k = 0; k < n_seen && !dup; k++)
                dup = strcmp(seen[k], e->d_name) == 0;
            if (dup)
                continue;
            seen = realloc(seen, (n_seen + 1) * sizeof *seen);
            seen[n_seen++] = strdup(e->d_name);
            char path[4096], err[1024];
            snprintf(path, sizeof path, "%s/%s", dirs[i], e->d_name);
            seam_library *lib = open_path(path, err, sizeof err);
            fn(ctx, path, lib ? lib->plugin : NULL, lib ? NULL : err);
            seam_library_close(&lib);
        }
        closedir(d);
    }
    for (size_t k = 0; k < n_seen; k++)
        free(seen[k]);
    free(seen);
}
