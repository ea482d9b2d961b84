/* One mass of tests/precice/participants/two_masses.xml, in C against
 * preCICE's C API: m u'' = -k_wall u + k_c (u_other - u), implicit Euler
 * with one step per window; prints "t u" at every completed window.
 * usage: mass NAME CONFIG MASS K_WALL K_COUPLING U0 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <precice/preciceC.h>

int main(int argc, char **argv)
{
    if (argc != 7) {
        fprintf(stderr, "usage: %s NAME CONFIG MASS K_WALL K_COUPLING U0\n", argv[0]);
        return 2;
    }
    const char *name = argv[1];
    const char *other = strcmp(name, "Left") == 0 ? "Right" : "Left";
    double m = atof(argv[3]), k_wall = atof(argv[4]), k_c = atof(argv[5]);
    double u = atof(argv[6]), v = 0.0, t = 0.0;
    char mesh[64], write[64], read[64];
    snprintf(mesh, sizeof mesh, "%s-Mesh", name);
    snprintf(write, sizeof write, "%s-Displacement", name);
    snprintf(read, sizeof read, "%s-Displacement", other);

    precicec_createParticipant(name, argv[2], 0, 1);
    double x[2] = { 0.0, 0.0 };
    int id = precicec_setMeshVertex(mesh, x);
    if (precicec_requiresInitialData())
        precicec_writeData(mesh, write, 1, &id, &u);
    precicec_initialize();
    double u_saved = u, v_saved = v;
    while (precicec_isCouplingOngoing()) {
        if (precicec_requiresWritingCheckpoint()) {
            u_saved = u;
            v_saved = v;
        }
        double dt = precicec_getMaxTimeStepSize(), u_other;
        precicec_readData(mesh, read, 1, &id, dt, &u_other);
        double v_new = (v + dt / m * (-(k_wall + k_c) * u + k_c * u_other)) /
                       (1.0 + dt * dt * (k_wall + k_c) / m);
        double u_new = u + dt * v_new;
        precicec_writeData(mesh, write, 1, &id, &u_new);
        precicec_advance(dt);
        u = u_new;
        v = v_new;
        if (precicec_requiresReadingCheckpoint()) {
            u = u_saved;
            v = v_saved;
        } else if (precicec_isTimeWindowComplete()) {
            t += dt;
            printf("%.17g %.17g\n", t, u);
        }
    }
    precicec_finalize();
    return 0;
}
