/* Output size and write time per frame of fluid_mac's write_output, legacy
 * ASCII VTK ("vtk": "legacy") against VTK XML with zlib-compressed binary
 * data, Float64 ("vtk": "xml", the default) and Float32 ("xml_float32"), on
 * a 3D water (dam break: grid plus particles) or smoke (hot jet: grid only)
 * run. One instance steps; after every few steps its state is saved and
 * loaded into the other two, and all three write the same frame, in rotating
 * order. Not part of the tests.
 *
 *     ninja -C build bench/fluid_mac/bench_vtk
 *     OPENBLAS_NUM_THREADS=1 ./build/bench/fluid_mac/bench_vtk [water3d|smoke3d] [N [frames [steps]]]
 *
 * Defaults: water3d, N = 20, 4 frames, 2 steps between frames. Files go to
 * $TMPDIR (or /tmp)/seam_bench_vtk/{legacy,xml,xml_float32}.
 */
#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "seam/plugin.h"
#include "seam/vtk.h"

const seam_plugin *fluid_mac_table(void);   /* the static library's table (plugins/fluid_mac/fluid.h) */

static void bench_log(void *ctx, seam_log_level level, const char *message)
{
    (void)ctx;
    if (level >= SEAM_LOG_WARN)
        fprintf(stderr, "fluid_mac: %s\n", message);
}

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Bytes of the files in dir whose names contain the frame's number (and, for XML, the .pvd). */
static double dir_bytes(const char *dir)
{
    DIR *d = opendir(dir);
    double sum = 0.0;
    struct dirent *e;
    char path[4400];
    struct stat st;
    while (d && (e = readdir(d)))
        if (e->d_name[0] != '.') {
            snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
            if (stat(path, &st) == 0)
                sum += (double)st.st_size;
        }
    if (d)
        closedir(d);
    return sum;
}

int main(int argc, char **argv)
{
    int water = !(argc > 1 && strcmp(argv[1], "smoke3d") == 0);
    int N = argc > 2 ? atoi(argv[2]) : 20, frames = argc > 3 ? atoi(argv[3]) : 4, steps = argc > 4 ? atoi(argv[4]) : 2;
    const seam_plugin *P = fluid_mac_table();
    static const char *const fmts[3] = {"legacy", "xml", "xml_float32"};
    /* the frame format is the host's setting (ABI 6), one host per instance */
    seam_host host[3];
    static const seam_vtk_format formats[3] = {SEAM_VTK_LEGACY, SEAM_VTK_XML, SEAM_VTK_XML_FLOAT32};
    char json[3][1024];
    for (int k = 0; k < 3; k++) {
        host[k] = (seam_host){.abi = SEAM_ABI_VERSION, .name = "fluid", .config_path = "fluid", .log = bench_log,
                              .vtk_format = formats[k]};
        if (water)   /* a 1 m cube, the left 40% filled 60% high across its depth, collapsing */
            snprintf(json[k], sizeof json[k],
                     "{\"cells\": [%d, %d, %d], \"dx\": %.17g, \"pressure_tolerance\": 1e-6,"
                     " \"gravity\": [0, -9.81, 0], \"liquid\": {\"fill\": [0, 0, 0, 0.4, 0.6, 1]}}",
                     N, N, N, 1.0 / N);
        else   /* a hot round jet from the floor of a 1 m cube open at the top */
            snprintf(json[k], sizeof json[k],
                     "{\"cells\": [%d, %d, %d], \"dx\": %.17g, \"density\": 1.2,"
                     " \"boundary\": {\"top\": \"open\"}, \"pressure_tolerance\": 1e-6,"
                     " \"buoyancy\": {\"temperature\": 0.05}, \"sources\": [{\"side\": \"bottom\","
                     " \"range\": [0.4, 0.6, 0.4, 0.6], \"shape\": \"disc\", \"speed\": 0.5,"
                     " \"profile\": \"parabolic\", \"temperature\": 50, \"ramp_time\": 0.1}]}",
                     N, N, N, 1.0 / N);
    }
    void *fl[3];
    seam_interface none = {3, 0, NULL, NULL, NULL, 3, 0, NULL, NULL, 0};
    for (int k = 0; k < 3; k++)
        if (!(fl[k] = P->create(P, json[k], &host[k])) || P->bind(fl[k], &none) != SEAM_OK)
            return 1;
    const char *root = getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
    char dir[3][4096], cmd[8300];
    for (int k = 0; k < 3; k++) {
        snprintf(dir[k], sizeof dir[k], "%.3000s/seam_bench_vtk/%s", root, fmts[k]);
        snprintf(cmd, sizeof cmd, "rm -rf '%.4000s' && mkdir -p '%.4000s'", dir[k], dir[k]);
        if (system(cmd) != 0)
            return 1;
    }
    double t_sim = 0.0, secs[3] = {0, 0, 0};
    for (int f = 0; f < frames; f++) {
        for (int n = 0; n < steps && f > 0; n++) {
            double dt = NAN;
            if (P->max_dt(fl[0], &dt) != SEAM_OK)
                return 1;
            seam_step st = {n, t_sim, fmin(dt, 0.02), 0};
            seam_input in = {0, 3, NULL, NULL, NULL};
            seam_output out = {0, 3, NULL, NULL, NULL};
            if (P->solve(fl[0], &st, &in, &out) != SEAM_OK || P->commit(fl[0]) != SEAM_OK)
                return 1;
            t_sim += st.dt;
        }
        seam_buffer b;
        if (P->save(fl[0], &b) != SEAM_OK || P->load(fl[1], b.data, b.size) != SEAM_OK ||
            P->load(fl[2], b.data, b.size) != SEAM_OK)
            return 1;
        for (int r = 0; r < 3; r++) {
            int k = (f + r) % 3;   /* rotate which format writes first */
            double t0 = now();
            if (P->write_output(fl[k], dir[k], f) != SEAM_OK)
                return 1;
            secs[k] += now() - t0;
        }
    }
    printf("%s %d^3, %d frames (t = %.3f s):", water ? "water3d" : "smoke3d", N, frames, t_sim);
    double bytes[3];
    for (int k = 0; k < 3; k++) {
        bytes[k] = dir_bytes(dir[k]);
        printf(" %s %.3f MB/frame %.1f ms/frame;", fmts[k], bytes[k] / frames / 1e6, 1e3 * secs[k] / frames);
    }
    printf(" legacy/xml size %.2f time %.2f, legacy/xml_float32 size %.2f time %.2f\n", bytes[0] / bytes[1],
           secs[0] / secs[1], bytes[0] / bytes[2], secs[0] / secs[2]);
    for (int k = 0; k < 3; k++)
        printf("@row scene=%s N=%d frames=%d format=%s MB_frame=%.4f ms_frame=%.2f\n", water ? "water3d" : "smoke3d", N,
               frames, fmts[k], bytes[k] / frames / 1e6, 1e3 * secs[k] / frames);
    for (int k = 0; k < 3; k++)
        P->destroy(fl[k]);
    return 0;
}
