/* dlopen-based plugin loading with checks that name the file. */
#define _GNU_SOURCE   /* dladdr: where this library was loaded from */
#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "seam/alloc.h"
#include "seam/loader.h"
#include "seam/log.h"

#ifndef SEAM_BUILD_PLUGIN_DIRS
#define SEAM_BUILD_PLUGIN_DIRS ""
#endif
#ifndef SEAM_PLUGIN_INSTALL_DIR
#define SEAM_PLUGIN_INSTALL_DIR ""
#endif
#ifndef SEAM_BUILD_CORE_DIR
#define SEAM_BUILD_CORE_DIR ""
#endif
#ifndef SEAM_PLUGIN_SUBDIR
#define SEAM_PLUGIN_SUBDIR "seam/plugins"
#endif

struct seam_library {
    void *handle;
    seam_plugin table;       /* normalized: entries its version lacks are NULL */
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
static const char *search_view[MAX_DIRS];   /* the same strings, as callers see them */
static size_t n_search_dirs;

static void add_dirs(const char *list)
{
    char *copy = seam_xstrdup(list);
    char *save = NULL;
    for (char *d = strtok_r(copy, ":", &save); d && n_search_dirs < MAX_DIRS; d = strtok_r(NULL, ":", &save))
        if (*d) {
            search_dirs[n_search_dirs] = seam_xstrdup(d);
            search_view[n_search_dirs] = search_dirs[n_search_dirs];
            n_search_dirs++;
        }
    free(copy);
}

/* The directory this library (libseam) was loaded from, resolved; NULL when unknown. */
static char *library_dir(void)
{
    static const char anchor = 0;
    Dl_info info;
    if (!dladdr(&anchor, &info) || !info.dli_fname)
        return NULL;
    char *path = realpath(info.dli_fname, NULL);
    char *slash = path ? strrchr(path, '/') : NULL;
    if (slash)
        *slash = '\0';
    return path;
}

size_t seam_plugin_search_path(const char ***dirs)
{
    for (size_t i = 0; i < n_search_dirs; i++)
        free(search_dirs[i]);
    n_search_dirs = 0;
    /* The libseam of the build tree searches the plugins built beside it; an
     * installed one those installed with it, LIBDIR/seam/plugins next to
     * LIBDIR/libseam.so wherever the tree was put (a DESTDIR, a moved prefix). */
    char *lib = library_dir(), *build = realpath(SEAM_BUILD_CORE_DIR, NULL);
    if (!lib || (build && strcmp(lib, build) == 0))
        add_dirs(SEAM_BUILD_PLUGIN_DIRS);
    else {
        char beside[4096];
        snprintf(beside, sizeof beside, "%s/%s", lib, SEAM_PLUGIN_SUBDIR);
        add_dirs(beside);
    }
    free(lib);
    free(build);
    if (n_search_dirs == 0 || strcmp(search_dirs[n_search_dirs - 1], SEAM_PLUGIN_INSTALL_DIR) != 0)
        add_dirs(SEAM_PLUGIN_INSTALL_DIR);
    const char *env = getenv("SEAM_PLUGIN_PATH");
    if (env)
        add_dirs(env);
    *dirs = search_view;
    return n_search_dirs;
}

bool seam_plugin_on_search_path(const char *name_or_path)
{
    if (!is_path(name_or_path))
        return true;
    char *file = realpath(name_or_path, NULL);
    if (!file)
        return false;
    char *slash = strrchr(file, '/');
    *slash = '\0';
    const char *parent = slash == file ? "/" : file;
    const char **dirs;
    size_t n = seam_plugin_search_path(&dirs);
    bool found = false;
    for (size_t i = 0; i < n && !found; i++) {
        char *dir = realpath(dirs[i], NULL);
        found = dir && strcmp(dir, parent) == 0;
        free(dir);
    }
    free(file);
    return found;
}

static const seam_entry_info entries[] = {
#define SEAM_ENTRY_INFO(fn, version, needed, shape) {#fn, version, needed, offsetof(seam_plugin, fn)},
    SEAM_PLUGIN_ENTRIES(SEAM_ENTRY_INFO)
#undef SEAM_ENTRY_INFO
};
enum { N_ENTRIES = sizeof entries / sizeof entries[0] };

const seam_entry_info *seam_plugin_entries(size_t *n)
{
    *n = N_ENTRIES;
    return entries;
}

const seam_entry_info *seam_plugin_entry_find(const char *name)
{
    for (size_t i = 0; i < N_ENTRIES; i++)
        if (strcmp(entries[i].name, name) == 0)
            return &entries[i];
    return NULL;
}

int seam_plugin_has(const seam_plugin *p, const seam_entry_info *e)
{
    void (*fn)(void);
    memcpy(&fn, (const char *)p + e->offset, sizeof fn);
    return fn != NULL;
}

size_t seam_plugin_table_size(uint32_t abi)
{
    if (abi < SEAM_ABI_OLDEST || abi > SEAM_ABI_VERSION)
        return 0;
    for (size_t i = 0; i < N_ENTRIES; i++)
        if (entries[i].abi > abi)
            return entries[i].offset;
    return sizeof(seam_plugin);
}

int seam_plugin_normalize(const seam_plugin *p, const char *path, seam_plugin *full, char *err, size_t errlen)
{
    size_t size = seam_plugin_table_size(p->abi);
    if (size == 0) {
        snprintf(err, errlen, "%s: plugin ABI version %u, but this seam accepts ABI versions %u to %u%s", path,
                 p->abi, SEAM_ABI_OLDEST, SEAM_ABI_VERSION,
                 p->abi < SEAM_ABI_OLDEST ? " (rebuild the plugin against this seam's plugin.h)" : " (a newer seam built it)");
        return -1;
    }
    memset(full, 0, sizeof *full);
    memcpy(full, p, size);   /* entries past its version stay NULL: absent */
    if (!p->name || !*p->name) {
        snprintf(err, errlen, "%s: plugin has no name", path);
        return -1;
    }
    if (p->role != SEAM_FLUID && p->role != SEAM_SOLID && p->role != SEAM_COUPLED) {
        snprintf(err, errlen, "%s: plugin \"%s\" has unknown role %d", path, p->name, (int)p->role);
        return -1;
    }
    for (size_t i = 0; i < N_ENTRIES; i++)
        if (entries[i].need == SEAM_NEED_ALL && !seam_plugin_has(full, &entries[i])) {
            snprintf(err, errlen, "%s: plugin \"%s\" leaves the required function %s NULL", path, p->name,
                     entries[i].name);
            return -1;
        }
    return 0;
}

uint32_t seam_plugin_caps(const seam_plugin *p, void *self)
{
    uint32_t caps;
    if (p->capabilities)
        caps = p->capabilities(self);
    else
        caps = (p->regions ? SEAM_CAP_REGIONS : 0u) | (p->mobility ? SEAM_CAP_MOBILITY : 0u) |
               (p->save && p->load ? SEAM_CAP_SAVE : 0u);
    if (!p->regions)
        caps &= ~(uint32_t)SEAM_CAP_REGIONS;
    if (!p->mobility)
        caps &= ~(uint32_t)SEAM_CAP_MOBILITY;
    if (!p->save || !p->load)
        caps &= ~(uint32_t)SEAM_CAP_SAVE;
    return caps;
}

void seam_caps_describe(uint32_t caps, char *buf, size_t n)
{
    static const struct { uint32_t flag; const char *name; } names[] = {
        {SEAM_CAP_LOADS_PRESSURE, "loads=pressure"}, {SEAM_CAP_LOADS_IMPULSE, "loads=impulse"},
        {SEAM_CAP_RIGID, "rigid"}, {SEAM_CAP_REGIONS, "regions"}, {SEAM_CAP_MOBILITY, "mobility"},
        {SEAM_CAP_SAVE, "save"},
    };
    size_t len = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < sizeof names / sizeof names[0] && len < n; i++)
        if (caps & names[i].flag) {
            int w = snprintf(buf + len, n - len, "%s%s", len ? ", " : "", names[i].name);
            if (w < 0)
                break;
            len += (size_t)w;
        }
    if (!buf[0] && n > 5)
        snprintf(buf, n, "none");
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
    seam_library *lib = SEAM_NEW(seam_library);
    lib->path = seam_xstrdup(path);
    if (seam_plugin_normalize(p, path, &lib->table, err, errlen) != 0) {
        free(lib->path);
        free(lib);
        dlclose(h);
        return NULL;
    }
    lib->handle = h;
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

const seam_plugin *seam_library_plugin(const seam_library *self) { return &self->table; }
const char *seam_library_path(const seam_library *self) { return self->path; }

int seam_plugin_check_role(const seam_plugin *p, const char *path, seam_role want,
                           const char *where, char *err, size_t errlen)
{
    if (p->role != want) {
        snprintf(err, errlen, "%s: plugin \"%s\" is a %s solver, but %s needs a %s solver", path,
                 p->name, seam_role_name(p->role), where, seam_role_name(want));
        return -1;
    }
    int need = want == SEAM_SOLID ? SEAM_NEED_SOLID : want == SEAM_FLUID ? SEAM_NEED_FLUID : -1;
    for (size_t i = 0; i < N_ENTRIES; i++)
        if (entries[i].need == need && !seam_plugin_has(p, &entries[i])) {
            snprintf(err, errlen, "%s: %s plugin \"%s\" leaves the required function %s NULL", path,
                     seam_role_name(want), p->name, entries[i].name);
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
            seen = seam_xrealloc_n(seen, n_seen + 1, sizeof *seen);
            seen[n_seen++] = seam_xstrdup(e->d_name);
            char path[4096], err[1024];
            snprintf(path, sizeof path, "%s/%s", dirs[i], e->d_name);
            seam_library *lib = open_path(path, err, sizeof err);
            fn(ctx, path, lib ? &lib->table : NULL, lib ? NULL : err);
            seam_library_close(&lib);
        }
        closedir(d);
    }
    for (size_t k = 0; k < n_seen; k++)
        free(seen[k]);
    free(seen);
}

int seam_participant_name_check(const char *name, char *why, size_t whylen)
{
    size_t n = strlen(name);
    if (n == 0 || n > SEAM_NAME_MAX) {
        snprintf(why, whylen, "a participant name has 1 to %d characters, got %zu", SEAM_NAME_MAX, n);
        return -1;
    }
    if (name[0] == '.') {
        snprintf(why, whylen, "a participant name must not start with '.' (it names a directory)");
        return -1;
    }
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)name[i];
        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '-' ||
              c == '.')) {
            snprintf(why, whylen, "a participant name is made of A-Z a-z 0-9 _ - . (it names a directory), "
                     "got byte 0x%02x at offset %zu", c, i);
            return -1;
        }
    }
    return 0;
}
