/*
 * protocol: what the fork server's client (client.c) and the server
 * (server.c) say over the server's Unix socket. Both sides are one machine
 * and one byte order, but not one word size: the server of the 32-bit build
 * is an i386 program (under qemu-user where the kernel runs no i386
 * programs) and the client a native one. So every field is a fixed-width
 * integer, and strings are NUL-terminated.
 *
 * Client to server, once, right after connecting:
 *   struct fs_header, sent with the client's descriptors 0, 1 and 2
 *   (SCM_RIGHTS), then 'length' bytes of body:
 *     u32 argc, then argc strings       the command line, argv[0] first
 *     u32 envc, then envc strings       the environment
 *     string                            the working directory
 *     u32 umask
 *     u32 n, then n x (u64 cur, u64 max) resource limits 0..n-1, with
 *                                       FS_RLIM_INFINITY for none
 *     u64 ignored                       signals ignored (bit s-1: signal s)
 *     u64 blocked                       signals blocked
 * Before that, as soon as it accepts, the server sends a struct fs_header
 * and a body of u32 n, then n strings: the entries of the environment it
 * started with that matter only when a process starts (fs_start_env). A
 * client whose own differ (a test that sets LD_LIBRARY_PATH, say) sends
 * nothing and executes evalset itself (EVALSET_FORKSERVER_EXEC).
 * Server to client, after the request: struct fs_reply FS_STARTED with the process id, then,
 * when that process has ended, FS_EXITED with its exit status or
 * FS_SIGNALED with the signal that ended it.
 */
#ifndef FORKSERVER_PROTOCOL_H
#define FORKSERVER_PROTOCOL_H

#include <errno.h>
#include <stdint.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#define FS_MAGIC 0x65766673u /* "evfs" */
#define FS_MAX_BODY (16u << 20)
#define FS_RLIM_INFINITY UINT64_MAX
#define FS_MAX_SIGNAL 64

/*
 * Whether the environment entry 'entry' ("NAME=value") is read when a
 * process starts, not when evalset asks for it: by the dynamic loader and
 * the C library (LD_*, GLIBC_TUNABLES, MALLOC_*), the sanitizer runtimes or
 * the emulator. A forked process keeps the server's.
 */
static inline int fs_start_env(const char *entry)
{
	static const char *const prefixes[] = {
		"LD_", "GLIBC_TUNABLES=", "MALLOC_", "ASAN_OPTIONS=", "UBSAN_OPTIONS=",
		"LSAN_OPTIONS=", "QEMU_",
	};

	for (unsigned i = 0; i < sizeof(prefixes) / sizeof(prefixes[0]); i++) {
		unsigned n = 0;

		while (prefixes[i][n])
			n++;
		if (!strncmp(entry, prefixes[i], n))
			return 1;
	}
	return 0;
}

/* Read all 'n' bytes into 'p' from the socket 'fd'; return 0, or -1 at
 * its end or on an error. */
static inline int fs_read_all(int fd, void *p, size_t n)
{
	char *c = p;

	while (n > 0) {
		ssize_t r = read(fd, c, n);

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return -1;
		c += r;
		n -= (size_t)r;
	}
	return 0;
}

/* Send all 'n' bytes of 'p' on the socket 'fd' (no SIGPIPE when the other
 * side has gone: -1, EPIPE); return 0, or -1 with errno set. */
static inline int fs_write_all(int fd, const void *p, size_t n)
{
	const char *c = p;

	while (n > 0) {
		ssize_t w = send(fd, c, n, MSG_NOSIGNAL);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return -1;
		c += w;
		n -= (size_t)w;
	}
	return 0;
}

struct fs_header {
	uint32_t magic;
	uint32_t length;
};

enum fs_reply_kind {
	FS_STARTED = 1,
	FS_EXITED = 2,
	FS_SIGNALED = 3,
};

struct fs_reply {
	uint32_t kind;
	int32_t value;
};

#endif
