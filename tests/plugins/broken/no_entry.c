/* A shared library that is not a seam plugin: no seam_plugin_v1. */
int not_a_seam_plugin(void);
int not_a_seam_plugin(void) { return 42; }
