"""Compare two masses' coupled trajectories ("t u" per completed window)
with the monolithic implicit Euler answer of the same system; exit 1 when
any window differs by more than 1e-8.
usage: check_two_masses.py LEFT_OUT RIGHT_OUT DT STEPS M1 KW1 M2 KW2 KC U1 U2"""
import sys

import numpy as np


def monolithic(dt, steps, m1, kw1, m2, kw2, kc, u1, u2):
    # x = (u1, u2, v1, v2); implicit Euler: (I - dt A) x_new = x_old
    A = np.array([[0, 0, 1, 0],
                  [0, 0, 0, 1],
                  [-(kw1 + kc) / m1, kc / m1, 0, 0],
                  [kc / m2, -(kw2 + kc) / m2, 0, 0]])
    step = np.linalg.inv(np.eye(4) - dt * A)
    x = np.array([u1, u2, 0.0, 0.0])
    out = []
    for n in range(1, steps + 1):
        x = step @ x
        out.append((n * dt, x[0], x[1]))
    return out


def main():
    left = np.loadtxt(sys.argv[1], ndmin=2)
    right = np.loadtxt(sys.argv[2], ndmin=2)
    dt, steps = float(sys.argv[3]), int(sys.argv[4])
    p = [float(a) for a in sys.argv[5:12]]
    ref = monolithic(dt, steps, *p)
    if left.shape[0] != steps or right.shape[0] != steps:
        print("expected %d windows, got %d (Left) and %d (Right)" % (steps, left.shape[0], right.shape[0]))
        return 1
    worst = 0.0
    for n, (t, u1, u2) in enumerate(ref):
        for got, want, who in ((left[n], u1, "Left"), (right[n], u2, "Right")):
            if abs(got[0] - t) > 1e-12:
                print("%s window %d ends at t = %.17g, not %.17g" % (who, n + 1, got[0], t))
                return 1
            worst = max(worst, abs(got[1] - want))
            if abs(got[1] - want) > 1e-8:
                print("%s window %d: u = %.17g, monolithic %.17g" % (who, n + 1, got[1], want))
                return 1
    print("all %d windows agree with the monolithic implicit Euler answer (max |difference| %.3g)"
          % (steps, worst))
    return 0


if __name__ == "__main__":
    sys.exit(main())
