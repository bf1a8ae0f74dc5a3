// SPDX-License-Identifier: GPL-2.0-only
#include "data/file.h"
#include "util/errors.h"
#include "util/msgs.h"

#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <libdeflate.h>
#include <cjson/cJSON.h>

static const char file_magic[8] = { 'F', 'O', 'L', 'I', 'O', 'S', 'T', 'A' };
#define CHUNK_MAGIC 0x4b484346u /* "FCHK" */

struct file_header {
	char magic[8];
	uint32_t version;
	uint32_t flags;
};

struct chunk_header {
	uint32_t magic;
	uint32_t type;
	uint64_t len;
	uint32_t payload_crc;
	uint32_t header_crc; /* of the 20 bytes before it */
};

_Static_assert(sizeof(struct chunk_header) == 24, "chunk header layout");

#define WBUF_SIZE (1u << 20)

struct fol_writer {
	int fd;
	char *path;
	char tmp[PATH_MAX];	/* the file until fol_writer_commit(); "" after, or for a device */
	int device;		/* writing to a character device or FIFO: no rename, no .old */
	int replace;		/* a recording is at path: it becomes path.old on commit */
	char *buf;
	size_t used;
	uint64_t bytes;
	fol_chunk_sink sink;
	void *ctx;
};

/* CRC-32 (the zlib/gzip one) from libdeflate: it uses the CPU's carry-less multiply where
 * there is one, several times zlib's speed; the reader checks every byte it reads. */
static uint32_t crc(const void *p, size_t len, uint32_t seed)
{
	return libdeflate_crc32(seed, p, len);
}

static int write_all(int fd, const void *p, size_t len)
{
	const char *c = p;

	while (len) {
		ssize_t n = write(fd, c, len);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		c += n;
		len -= (size_t)n;
	}
	return 0;
}

/* What is at a path now, for the writer's decision (errno-style: 0 or negative). */
enum target { T_NONE, T_RECORDING, T_DEVICE };

/* A regular file foliostat could have written: a recording (its magic), or empty (a run
 * that died before its header). Anything else at the output path is the user's. */
static int is_ours(const char *path)
{
	char magic[sizeof(file_magic)];
	int fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return 0;
	n = read(fd, magic, sizeof(magic));
	close(fd);
	return n == 0 || (n == (ssize_t)sizeof(magic) && !memcmp(magic, file_magic, sizeof(magic)));
}

/* Classify path; negative when foliostat must not write there:
 * -ENOTEMPTY: a regular file that is not a recording; -ELOOP: a symbolic link (to
 * anything but a character device or FIFO); -EISDIR; -ENOTBLK: a block device;
 * -ENOTSOCK: a socket; -ENOTTY: a terminal. */
static int classify(const char *path, enum target *t)
{
	struct stat st;

	if (lstat(path, &st) < 0) {
		if (errno != ENOENT)
			return -errno;
		*t = T_NONE;
		return 0;
	}
	if (S_ISLNK(st.st_mode)) {
		/* Followed only to where writing cannot create or replace anything: a device
		 * or FIFO such as /dev/stdout. A link to a file, or a dangling one, might point
		 * anywhere a root process can write. */
		if (stat(path, &st) < 0 || !(S_ISCHR(st.st_mode) || S_ISFIFO(st.st_mode)))
			return -ELOOP;
	}
	if (S_ISDIR(st.st_mode))
		return -EISDIR;
	if (S_ISBLK(st.st_mode))
		return -ENOTBLK;
	if (S_ISSOCK(st.st_mode))
		return -ENOTSOCK;
	if (S_ISCHR(st.st_mode) || S_ISFIFO(st.st_mode)) {
		*t = T_DEVICE;
		return 0;
	}
	if (!S_ISREG(st.st_mode) || !is_ours(path))
		return -ENOTEMPTY;
	*t = T_RECORDING;
	return 0;
}

static int open_device(struct fol_writer *w, const char *path)
{
	int flags;

	/* Non-blocking first: a FIFO without a reader fails at once instead of hanging. */
	w->fd = open(path, O_WRONLY | O_NOCTTY | O_NONBLOCK | O_CLOEXEC);
	if (w->fd < 0) {
		struct stat st;

		/* ENXIO: a FIFO nobody reads, or a device that is not there (/dev/tty with no
		 * controlling terminal). */
		if (errno == ENXIO && !stat(path, &st) && S_ISFIFO(st.st_mode))
			return -EPIPE;
		return -errno;
	}
	if (isatty(w->fd)) {
		close(w->fd);
		w->fd = -1;
		return -ENOTTY;
	}
	flags = fcntl(w->fd, F_GETFL);
	if (flags < 0 || fcntl(w->fd, F_SETFL, flags & ~O_NONBLOCK) < 0)
		return -errno;
	return 0;
}

/* Temporaries of writers that died before their commit (SIGKILL, a crash) in dir ("" the
 * working directory): .foliostat-PID.XXXXXX of a PID that is gone, holding a recording or
 * nothing. A PID in use again is left alone: its file may be someone's. */
static void remove_stale(const char *dir, int dirlen)
{
	char path[PATH_MAX];
	struct dirent *de;
	DIR *d;

	snprintf(path, sizeof(path), "%.*s", dirlen, dir);
	d = opendir(dirlen ? path : ".");
	while (d && (de = readdir(d))) {
		char rest[16];
		struct stat st;
		int pid, n;

		if (sscanf(de->d_name, ".foliostat-%d.%15s%n", &pid, rest, &n) != 2 || pid <= 0 ||
		    strlen(rest) != 6 || de->d_name[n] || !kill(pid, 0) || errno != ESRCH)
			continue;
		snprintf(path, sizeof(path), "%.*s%s", dirlen, dir, de->d_name);
		if (!lstat(path, &st) && S_ISREG(st.st_mode) && is_ours(path))
			unlink(path);
	}
	if (d)
		closedir(d);
}

/* The new file starts as a hidden temporary beside path (0600: it holds kernel addresses
 * and PFNs), so that nothing at path changes before the header is on disk. Its name,
 * .foliostat-PID.XXXXXX, says whose it is should the run be killed (the next writer in the
 * directory removes it), and is as long whatever path's name (a name of 250 bytes, legal,
 * leaves no room for a prefix and a suffix). */
static int open_temp(struct fol_writer *w, const char *path)
{
	const char *slash = strrchr(path, '/');
	int dirlen = slash ? (int)(slash + 1 - path) : 0;
	int n = snprintf(w->tmp, sizeof(w->tmp), "%.*s.foliostat-%d.XXXXXX", dirlen, path,
			 (int)getpid());

	if (n < 0 || (size_t)n >= sizeof(w->tmp))
		return -ENAMETOOLONG;
	remove_stale(path, dirlen);
	w->fd = mkostemp(w->tmp, O_CLOEXEC);
	if (w->fd < 0) {
		w->tmp[0] = '\0';
		return -errno;
	}
	return 0;
}

static void writer_free(struct fol_writer *w)
{
	if (w->fd >= 0)
		close(w->fd);
	if (w->tmp[0])
		unlink(w->tmp);
	free(w->path);
	free(w->buf);
	free(w);
}

int fol_writer_open(struct fol_writer **wp, const char *path)
{
	struct file_header h = { .version = FOL_FILE_VERSION };
	struct fol_writer *w;
	enum target t, t_old = T_NONE;
	char old[PATH_MAX];
	int ret;

	if (snprintf(old, sizeof(old), "%s.old", path) >= (int)sizeof(old))
		return -ENAMETOOLONG;
	ret = classify(path, &t);
	/* path.old is replaced on commit: it must be absent or a recording itself. */
	if (!ret && t == T_RECORDING && (classify(old, &t_old) || t_old == T_DEVICE))
		ret = -EEXIST;
	if (ret)
		return ret;
	w = calloc(1, sizeof(*w));
	if (!w)
		return -ENOMEM;
	w->fd = -1;
	w->buf = malloc(WBUF_SIZE);
	w->path = strdup(path);
	if (!w->buf || !w->path) {
		writer_free(w);
		return -ENOMEM;
	}
	w->device = t == T_DEVICE;
	w->replace = t == T_RECORDING;
	ret = w->device ? open_device(w, path) : open_temp(w, path);
	if (!ret) {
		memcpy(h.magic, file_magic, sizeof(h.magic));
		ret = write_all(w->fd, &h, sizeof(h));
	}
	if (ret) {
		writer_free(w);
		return ret;
	}
	w->bytes = sizeof(h);
	*wp = w;
	return 0;
}

int fol_writer_why(int err, const char *path, struct fol_msgs *why)
{
	switch (err) {
	case -ENOTEMPTY:
		fol_msgs_add(why, "%s exists and is not a foliostat recording: foliostat replaces "
				  "only its own files; remove it or name another file with -o", path);
		break;
	case -EEXIST:
		fol_msgs_add(why, "%s.old exists and is not a foliostat recording, and the recording "
				  "now at %s would replace it: move one of them away", path, path);
		break;
	case -ELOOP:
		fol_msgs_add(why, "%s is a symbolic link: foliostat follows links only to devices "
				  "and FIFOs (through a link to a file a root process could create or "
				  "replace anything); name the file itself", path);
		break;
	case -EISDIR:
		fol_msgs_add(why, "%s is a directory: name a file with -o", path);
		break;
	case -ENOTBLK:
		fol_msgs_add(why, "%s is a block device: foliostat does not write recordings onto "
				  "block devices", path);
		break;
	case -ENOTSOCK:
		fol_msgs_add(why, "%s is a socket: name a file, a FIFO or a character device", path);
		break;
	case -ENOTTY:
		fol_msgs_add(why, "%s is a terminal: redirect the recording to a file or a pipe", path);
		break;
	case -ENXIO:
		fol_msgs_add(why, "%s: no such device here (/dev/tty without a controlling "
				  "terminal?): name a file", path);
		break;
	case -EPIPE:
		fol_msgs_add(why, "%s is a FIFO that nobody reads: start its reader first", path);
		break;
	default:
		fol_msgs_add(why, "cannot create %s: %s", path, strerror(-err));
	}
	return err;
}

int fol_writer_commit(struct fol_writer *w)
{
	char old[PATH_MAX];
	int ret;

	if (!w->tmp[0])
		return 0; /* a device, a sink, or done already */
	ret = fol_writer_flush(w);
	if (ret)
		return ret;
	snprintf(old, sizeof(old), "%s.old", w->path);
	/* Checked again: the path may have changed since the writer was opened. */
	if (w->replace && rename(w->path, old) < 0 && errno != ENOENT)
		return -errno;
	if (renameat2(AT_FDCWD, w->tmp, AT_FDCWD, w->path, RENAME_NOREPLACE) < 0)
		return errno == EEXIST ? -ENOTEMPTY : -errno;
	w->tmp[0] = '\0';
	return 0;
}

int fol_writer_open_sink(struct fol_writer **wp, fol_chunk_sink sink, void *ctx)
{
	struct fol_writer *w = calloc(1, sizeof(*w));

	if (!w)
		return -ENOMEM;
	w->fd = -1;
	w->sink = sink;
	w->ctx = ctx;
	*wp = w;
	return 0;
}

int fol_writer_flush(struct fol_writer *w)
{
	int ret;

	if (w->sink)
		return 0;
	ret = write_all(w->fd, w->buf, w->used);
	w->used = 0;
	return ret;
}

static int append(struct fol_writer *w, const void *p, size_t len)
{
	int ret;

	if (!len)
		return 0;
	if (w->used + len > WBUF_SIZE) {
		ret = fol_writer_flush(w);
		if (ret)
			return ret;
		if (len > WBUF_SIZE)
			return write_all(w->fd, p, len);
	}
	memcpy(w->buf + w->used, p, len);
	w->used += len;
	return 0;
}

int fol_writer_chunk_buf(struct fol_writer *w, uint32_t type, const void *buf, size_t len)
{
	struct chunk_header h = { .magic = CHUNK_MAGIC, .type = type, .len = len };
	int ret;

	if (len > FOL_CHUNK_MAX)
		return -EMSGSIZE;
	if (w->sink) {
		ret = w->sink(w->ctx, type, buf, len);
	} else {
		h.payload_crc = len ? crc(buf, len, 0) : 0;
		h.header_crc = crc(&h, offsetof(struct chunk_header, header_crc), 0);
		ret = append(w, &h, sizeof(h));
		if (!ret)
			ret = append(w, buf, len);
	}
	if (!ret)
		w->bytes += sizeof(h) + len;
	return ret;
}

uint64_t fol_writer_bytes(const struct fol_writer *w)
{
	return w->bytes;
}

int fol_writer_close(struct fol_writer *w)
{
	int ret;

	if (!w)
		return 0;
	ret = fol_writer_flush(w);
	if (w->fd >= 0 && close(w->fd) < 0 && !ret)
		ret = -errno;
	w->fd = -1;
	writer_free(w);
	return ret;
}

/* Reader: buffered, so that a damaged region can be rescanned byte by byte for the next
 * chunk header without re-reading the file. */
#define RBUF_MIN (1u << 20)

struct fol_reader {
	int fd;
	char *buf;
	size_t cap, start, end; /* valid bytes are buf[start, end) */
	int eof;
	struct fol_reader_status st;
};

/* Make at least n bytes available from start; returns the number available (< n at EOF). */
static ssize_t fill(struct fol_reader *r, size_t n)
{
	while (r->end - r->start < n && !r->eof) {
		ssize_t got;

		if (r->start && r->start + n > r->cap) {
			memmove(r->buf, r->buf + r->start, r->end - r->start);
			r->end -= r->start;
			r->start = 0;
		}
		if (n > r->cap) {
			/* To the chunk's size exactly, not through FOL_GROW: doubled, a reader
			 * of one 64 MiB chunk would hold 128 MiB. */
			char *nb = realloc(r->buf, n);

			if (!nb)
				return -ENOMEM;
			r->buf = nb;
			r->cap = n;
		}
		got = read(r->fd, r->buf + r->end, r->cap - r->end);
		if (got < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		if (got == 0)
			r->eof = 1;
		r->end += (size_t)got;
	}
	return (ssize_t)(r->end - r->start);
}

int fol_reader_open(struct fol_reader **rp, const char *path)
{
	struct file_header h;
	struct fol_reader *r;
	struct stat st;
	ssize_t n;
	int ret;

	r = calloc(1, sizeof(*r));
	if (!r)
		return -ENOMEM;
	/* Non-blocking: opening a FIFO nobody writes to must not hang. */
	r->fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (r->fd < 0) {
		ret = -errno;
		free(r);
		return ret;
	}
	if (fstat(r->fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		ret = S_ISDIR(st.st_mode) ? -EISDIR : -ESPIPE;
		fol_reader_close(r);
		return ret;
	}
	r->cap = RBUF_MIN;
	r->buf = malloc(r->cap);
	if (!r->buf) {
		fol_reader_close(r);
		return -ENOMEM;
	}
	n = fill(r, sizeof(h));
	if (n < 0) {
		fol_reader_close(r);
		return (int)n;
	}
	if ((size_t)n < sizeof(h) || memcmp(r->buf, file_magic, sizeof(file_magic))) {
		fol_reader_close(r);
		return -FOL_E_NOT_RECORDING;
	}
	memcpy(&h, r->buf, sizeof(h));
	if (h.version == 0) {
		/* No writer ever made version 0: a damaged header, not a newer file. */
		fol_reader_close(r);
		return -FOL_E_DAMAGED_HEADER;
	}
	if (h.version != FOL_FILE_VERSION) {
		fol_reader_close(r);
		return -FOL_E_NEWER_FORMAT;
	}
	r->start += sizeof(h);
	*rp = r;
	return 0;
}

static int header_ok(const struct chunk_header *h)
{
	return h->magic == CHUNK_MAGIC &&
	       h->header_crc == crc(h, offsetof(struct chunk_header, header_crc), 0) &&
	       h->len <= FOL_CHUNK_MAX;
}

int fol_reader_next(struct fol_reader *r, uint32_t *type, const void **buf, size_t *len)
{
	struct chunk_header h;
	int in_damage = 0;
	ssize_t n;

	for (;;) {
		n = fill(r, sizeof(h));
		if (n < 0)
			return (int)n;
		if ((size_t)n < sizeof(h)) {
			if (n > 0 && !in_damage)
				r->st.truncated = 1;
			if (in_damage)
				r->st.corrupt_bytes += (uint64_t)n;
			r->start = r->end;
			return 0;
		}
		memcpy(&h, r->buf + r->start, sizeof(h));
		if (!header_ok(&h))
			goto damaged;
		n = fill(r, sizeof(h) + h.len);
		if (n < 0)
			return (int)n;
		if ((size_t)n < sizeof(h) + h.len) {
			/* A torn last chunk is a recording cut short, not corruption. */
			r->st.truncated = 1;
			r->start = r->end;
			return 0;
		}
		if (crc(r->buf + r->start + sizeof(h), h.len, 0) != h.payload_crc)
			goto damaged;
		*type = h.type;
		*buf = r->buf + r->start + sizeof(h);
		*len = h.len;
		r->start += sizeof(h) + h.len;
		r->st.chunks++;
		if (h.type == FOL_CHUNK_END)
			r->st.complete = 1;
		return 1;
damaged:
		/* Resynchronise on the next byte: a valid header has two matching CRCs, so a
		 * false match inside damaged data is vanishingly unlikely. */
		if (!in_damage)
			r->st.corrupt_chunks++;
		in_damage = 1;
		r->st.corrupt_bytes++;
		r->start++;
	}
}

int fol_reader_find_ahead(struct fol_reader *r, uint32_t type, uint64_t stop, void **buf,
			  size_t *len)
{
	off_t at = lseek(r->fd, 0, SEEK_CUR);
	struct chunk_header h;

	if (at < 0)
		return -errno;
	at -= (off_t)(r->end - r->start);
	for (;;) {
		void *p;

		if (pread(r->fd, &h, sizeof(h), at) != (ssize_t)sizeof(h) || !header_ok(&h) ||
		    (h.type < 64 && (stop >> h.type & 1)))
			return 0;
		if (h.type != type) {
			at += (off_t)(sizeof(h) + h.len);
			continue;
		}
		p = malloc(h.len + 1);
		if (!p)
			return -ENOMEM;
		if (pread(r->fd, p, h.len, at + (off_t)sizeof(h)) != (ssize_t)h.len ||
		    crc(p, h.len, 0) != h.payload_crc) {
			free(p);
			return 0;
		}
		*buf = p;
		*len = h.len;
		return 1;
	}
}

const struct fol_reader_status *fol_reader_status(const struct fol_reader *r)
{
	return &r->st;
}

void fol_reader_close(struct fol_reader *r)
{
	if (!r)
		return;
	if (r->fd >= 0)
		close(r->fd);
	free(r->buf);
	free(r);
}

int fol_writer_chunk_json(struct fol_writer *w, uint32_t type, const cJSON *j)
{
	char *s = cJSON_PrintUnformatted(j);
	int ret;

	if (!s)
		return -ENOMEM;
	ret = fol_writer_chunk_buf(w, type, s, strlen(s));
	free(s);
	return ret;
}
