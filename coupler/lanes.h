/* One loop shape for the coupling layer's passes over interface vectors:
 * blocks of four lanes and a scalar tail. With restrict parameters GCC
 * vectorizes the block at -O2, where the plain loop stays scalar (the
 * coupling layer's cost per iteration is bench/schemes' `share` mode). */
#ifndef SEAM_COUPLER_LANES_H
#define SEAM_COUPLER_LANES_H

#include <stddef.h>

/* Run the statement(s) for every index j in [0, n), with l the lane of j
 * (0 to 3; 0 in the tail): reductions keep one partial sum per lane. */
#define SEAM_LANES(j, l, n, ...)                                      \
    do {                                                              \
        size_t lanes_i_ = 0, lanes_n_ = (n);                          \
        for (; lanes_i_ + 4 <= lanes_n_; lanes_i_ += 4)               \
            for (size_t l = 0; l < 4; l++) {                          \
                size_t j = lanes_i_ + l;                              \
                __VA_ARGS__                                           \
            }                                                         \
        for (; lanes_i_ < lanes_n_; lanes_i_++) {                     \
            size_t j = lanes_i_, l = 0;                               \
            (void)l;                                                  \
            __VA_ARGS__                                               \
        }                                                             \
    } while (0)

#endif
