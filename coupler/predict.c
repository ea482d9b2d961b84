#include "predict.h"

void predict_weights(int p, const double *dt_past, double dt, double l[PREDICT_MAX_ORDER + 1])
{
    double tau[PREDICT_MAX_ORDER + 1] = {0.0};
    for (int j = 1; j <= p; j++)
        tau[j] = tau[j - 1] - dt_past[j - 1];
    for (int j = 0; j <= p; j++) {
        l[j] = 1.0;
        for (int m = 0; m <= p; m++)
            if (m != j)
                l[j] *= (dt - tau[m]) / (tau[j] - tau[m]);
    }
}
