/* SPDX-License-Identifier: GPL-2.0 */
/* The destination side of a migration (receive.c). */
#ifndef HOST_MIGRATE_RECEIVE_H
#define HOST_MIGRATE_RECEIVE_H

/* Receive one migration on @fd and answer its checks; exit status. */
int migrate_serve(int fd);
/* mmubench migrate-receive --listen PORT | --fd N */
int cmd_migrate_receive(int argc, char **argv);

#endif
