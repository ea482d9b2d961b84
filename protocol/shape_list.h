/* Reading the shape column of plugin.h's SEAM_PLUGIN_ENTRIES with the
 * preprocessor alone: shape.h builds C code on it, abi_py.c the Python
 * client's tables. */
#ifndef SEAM_SHAPE_LIST_H
#define SEAM_SHAPE_LIST_H

/* ---- reading the entry list ----------------------------------------------- */

/* A shape column becomes a tuple: (1, receiver, number of parameters, parameters...), (0, 0) by hand. */
#define SEAM_SHAPE(recv, ...) (1, recv, WIRE_NARGS(__VA_ARGS__), __VA_ARGS__)
#define SEAM_HAND (0, 0)
#define WIRE_NARGS(...) WIRE_NARGS_(__VA_ARGS__, 3, 2, 1, 0)
#define WIRE_NARGS_(a, b, c, n, ...) n
#define WIRE_EXPAND(...) __VA_ARGS__
#define WIRE_CALL(m, ...) m(__VA_ARGS__)
#define WIRE_EXPANDP(...) __VA_ARGS__   /* the same again: a macro is not expanded inside itself */
#define WIRE_CALLP(m, ...) m(__VA_ARGS__)
#define WIRE_PASTE(a, b) a##b

/* WIRE_SHAPED(what, name, shape): what##N(name, receiver, p0, ...) for an
 * entry of N parameters; nothing for one by hand. */
#define WIRE_SHAPED(what, name, shape) WIRE_CALL(WIRE_SHAPED_, what, name, WIRE_EXPAND shape)
#define WIRE_SHAPED_(what, name, derived, ...) WIRE_SHAPED_##derived(what, name, __VA_ARGS__)
#define WIRE_SHAPED_0(what, name, ...)
#define WIRE_SHAPED_1(what, name, recv, n, ...) WIRE_PASTE(what, n)(name, recv, __VA_ARGS__)

/* Per parameter p (a tuple from the list): WIRE_P(what, i, p) is what##KIND(i, ...). */
#define WIRE_P(what, i, p) WIRE_CALLP(WIRE_P_, what, i, WIRE_EXPANDP p)
#define WIRE_P_(what, i, kind, ...) what##kind(i, __VA_ARGS__)

/* Receivers: the instance (reading or replacing its committed state) or the table itself. */
#define WIRE_RECV_SEAM_READS 0
#define WIRE_RECV_SEAM_CHANGES 1
#define WIRE_RECV_SEAM_PLUGIN 2
#define WIRE_SELF_SEAM_READS void *self
#define WIRE_SELF_SEAM_CHANGES void *self
#define WIRE_SELF_SEAM_PLUGIN const seam_plugin *self
#define WIRE_N_IFACE 0
#define WIRE_N_1 1
#define WIRE_N_2 2
#define WIRE_N_3 3
#define WIRE_N_9 9

#endif
