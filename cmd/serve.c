// SPDX-License-Identifier: GPL-2.0-only
/* foliostat serve: a Prometheus exporter. The recording streams into the model as stat's
 * does (system-wide), the model tells each fault to a tally by cgroup or of all; libmicrohttpd
 * serves /metrics from its own thread, under the lock the stream takes to change them. */
#include "cmd.h"
#include "util.h"

#ifdef FOL_NO_HTTP
/* The arm64 cross build: Debian's arm64 libmicrohttpd is not installed beside the native. */
int cmd_serve(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	return error("serve: this foliostat was built without libmicrohttpd (CROSS=arm64)");
}
#else
#include <arpa/inet.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <microhttpd.h>
#include <netdb.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "live/stream.h"
#include "live/connguard.h"
#include "live/kcounts.h"
#include "live/metrics.h"
#include "options.h"
#include "record_cli.h"
#include "sys/counters.h"
#include "sys/peer.h"
#include "util/clock.h"
#include "util/errors.h"
#include "util/parse.h"

#define DEFAULT_LISTEN "127.0.0.1:9470"
/* Connections (connguard.h): kept in all, of one peer, and the time a request has to come
 * whole and be answered. A scrape takes one connection and a few milliseconds (up to the
 * 1 s wait_counted gives it); Prometheus reconnects when an idle one was closed. */
#define MAX_CONNECTIONS 128
#define MAX_PEER_CONNECTIONS 8
#define REQUEST_DEADLINE_NS 5000000000ull
/* The server's own: connections accepted at once, most of them to be refused at once.
 * While it holds as many as it may, it accepts no more, the kernel's accept queue fills
 * and a scraper's SYN is dropped (retried 1 s later: 10,000 idle connections made scrapes
 * take 1.2 s). Its threads: one waits in wait_counted while the others accept. */
#define SERVER_CONNECTIONS 1024
#define SERVER_THREADS 4
#define MAX_CGROUPS_LIMIT 10000
/* A removed cgroup's series stay two of Prometheus' default scrape intervals (1 m): its
 * last counts are scraped once at least. */
#define DEFAULT_LINGER_S 120

static const struct usage serve_usage = {
	"usage: foliostat serve [--listen ADDR:PORT] [-a] [-G CGROUP] [--by-cgroup]\n"
	"\n"
	"A Prometheus exporter: records every task's page faults (as record -a) and serves\n"
	"them at http://ADDR:PORT/metrics (the Prometheus text format 0.0.4, or OpenMetrics\n"
	"when the scraper asks for it), with /healthz. Metrics: foliostat_faults_total and\n"
	"the foliostat_fault_seconds histogram by order and class, reuse faults and\n"
	"episodes by order, unknown-order faults by cause, the kernel's mTHP counters;\n"
	"labelled by cgroup with --by-cgroup or -G. And serve's own: its resident memory,\n"
	"CPU time, malloc heap and BPF map bytes (process_*, foliostat_heap_bytes,\n"
	"foliostat_bpf_map_bytes).\n"
	"\n"
	"Cost: stat's streaming path over every task: each fault one record (the BPF fault\n"
	"path, where the machine allows it) or two samples, classified in user space; but on\n"
	"the BPF path the kernel decides what it can and writes nothing: a fault allocating a\n"
	"folio in an anonymous private VMA or copying a page of a file's private one\n"
	"(foliostat_kernel_alloc_faults_total), a reuse fault of a folio it saw allocated\n"
	"(foliostat_kernel_reuse_faults_total says how many, and why others were not), a\n"
	"file fault on a cached page (foliostat_kernel_file_faults_total), a swap-in from\n"
	"the swap cache (foliostat_kernel_swap_faults_total), a read that mapped the 4K zero\n"
	"page or a special mapping's page (foliostat_kernel_zero_faults_total);\n"
	"foliostat_streamed_faults_total counts the rest by class. make bench measures the\n"
	"time it adds per fault.\n"
	"Memory holds the tasks alive, not those gone: serve runs for days; a cgroup\n"
	"removed (a container gone) leaves the metrics --cgroup-linger seconds after.\n"
	"\n",
	"\n"
	"Runs until SIGINT or SIGTERM (or --duration). Exit status: 0, 1 when recording or\n"
	"listening failed, 2 for usage errors.\n",
};

struct serve {
	struct rec_cli c;
	struct fol_live *l;
	struct fol_tally *tally;
	pthread_mutex_t lock;
	const char *listen;
	int by_cgroup, max_cgroups, linger;
	int sample;	/* --sample N: one fault in N timed (1, 0: every one) */
	double duration;
	uint64_t started_ns;
	char kernel[65];
	volatile int recording;
	/* A scrape counts what happened before it: it waits (under lock, on ticked) for two
	 * ticks of the recorder after it came, each after a poll drained the ring buffers,
	 * the second with the kernel's counts pulled. */
	pthread_cond_t ticked;
	uint64_t ticks;
	int scrape_waiting;
	/* Kernel decisions (on unless --no-kernel-decisions), pulled into the tally and
	 * removed cgroups pruned at each tick. */
	int no_kernel_reuse;
	struct fol_kcounts *kc;
	/* The cgroup of -G, removed since serve started: nothing more can be counted. */
	volatile int cgroup_gone;
	/* The HTTP server's connections, under their own lock: its thread adds and removes
	 * them, the recorder's tick ends those past their deadline. */
	pthread_mutex_t guard_lock;
	struct fol_conn_guard *guard;
};

/* libmicrohttpd is opened when serve starts, not linked: linked, it brought gnutls and
 * nine more libraries into every foliostat process, the built-in workloads' too (their
 * start took some 100 more copy-on-write faults, past live 12's slack in a 6.12 guest,
 * and gnutls' constructor ran in each). */
static struct {
	__typeof__(MHD_start_daemon) *start_daemon;
	__typeof__(MHD_stop_daemon) *stop_daemon;
	__typeof__(MHD_create_response_from_buffer) *create_response_from_buffer;
	__typeof__(MHD_add_response_header) *add_response_header;
	__typeof__(MHD_queue_response) *queue_response;
	__typeof__(MHD_destroy_response) *destroy_response;
	__typeof__(MHD_lookup_connection_value) *lookup_connection_value;
	__typeof__(MHD_get_connection_info) *get_connection_info;
} mhd;

/* 0, or the exit status of the error (said). */
static int mhd_open(void)
{
	void *h = dlopen("libmicrohttpd.so.12", RTLD_NOW | RTLD_LOCAL);
	const char *missing = NULL;

#define MHD_SYM(name)                                                        \
	if (h && !missing && !(*(void **)&mhd.name = dlsym(h, "MHD_" #name))) \
		missing = "MHD_" #name;
	MHD_SYM(start_daemon)
	MHD_SYM(stop_daemon)
	MHD_SYM(create_response_from_buffer)
	MHD_SYM(add_response_header)
	MHD_SYM(queue_response)
	MHD_SYM(destroy_response)
	MHD_SYM(lookup_connection_value)
	MHD_SYM(get_connection_info)
#undef MHD_SYM
	if (!h)
		return error("serve needs libmicrohttpd (Debian's libmicrohttpd12, which make deps "
			     "installs): %s", dlerror());
	if (missing)
		return error("serve: this libmicrohttpd has no %s: install Debian 12's libmicrohttpd12",
			     missing);
	return 0;
}

/* The page as the scraper asked for it: a malloc'ed text, its length and type. */
static char *render(struct serve *s, int openmetrics, size_t *len)
{
	cJSON *counters = fol_counters_snapshot("");
	const struct fol_summary *sum;
	struct fol_self me;
	uint64_t refused, late;
	int kept;
	char *buf = NULL;
	FILE *f = open_memstream(&buf, len);
	int ret;

	if (!f) {
		cJSON_Delete(counters);
		return NULL;
	}
	fol_self_read(&me); /* what /proc did not say stays 0 */
	pthread_mutex_lock(&s->guard_lock);
	refused = fol_conn_guard_refused(s->guard);
	late = fol_conn_guard_ended(s->guard);
	kept = fol_conn_guard_count(s->guard);
	pthread_mutex_unlock(&s->guard_lock);
	pthread_mutex_lock(&s->lock);
	sum = fol_live_summary(s->l);
	ret = fol_scrape_write(&(struct fol_scrape){
				       .tally = s->tally,
				       .by_cgroup = s->by_cgroup,
				       .sample = (unsigned)s->sample,
				       .s = sum,
				       .lost = sum ? sum->lost : 0,
				       .counters = counters,
				       .page_size = fol_live_page_size(s->l),
				       .kernel = s->kernel,
				       .fault_path = fol_live_recording(s->l) ? fol_live_recording(s->l)->fault_path : NULL,
				       .started_ns = s->started_ns,
				       .kernel_reuse = fol_kcounts_stat(s->kc),
				       .kernel_keys = fol_kcounts_keys(s->kc),
				       .http = 1,
				       .http_kept = kept,
				       .http_refused = refused,
				       .http_ended = late,
				       .self = &me,
			       },
			       openmetrics ? FOL_METRICS_OPENMETRICS : FOL_METRICS_PROMETHEUS, f);
	pthread_mutex_unlock(&s->lock);
	cJSON_Delete(counters);
	if (fclose(f) || ret) {
		free(buf);
		return NULL;
	}
	return buf;
}

static enum MHD_Result reply(struct MHD_Connection *conn, unsigned code, char *body, size_t len,
			     const char *type)
{
	struct MHD_Response *r = mhd.create_response_from_buffer(len, body, MHD_RESPMEM_MUST_FREE);
	enum MHD_Result ret;

	if (!r) {
		free(body);
		return MHD_NO;
	}
	mhd.add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, type);
	ret = mhd.queue_response(conn, code, r);
	mhd.destroy_response(r);
	return ret;
}

/* Whether every record of the events before came is in the model (under lock). */
static int released(const struct serve *s, uint64_t came)
{
	return fol_live_released_until(s->l) >= came; /* 0 before the first events */
}

/* Until what happened before the scrape came is counted (1 s at most: a scrape is
 * answered, late counts or not): the recorder has ticked twice since (the kernel's counts
 * pulled: a tick does when a scrape waits), and the merge has released every record
 * before it into the model (two or three ticks: the rounds' drain times). */
static void wait_counted(struct serve *s)
{
	uint64_t came = fol_mono_ns(), want;
	struct timespec until;

	clock_gettime(CLOCK_REALTIME, &until);
	until.tv_sec += 1;
	pthread_mutex_lock(&s->lock);
	want = s->ticks + 2;
	s->scrape_waiting++;
	while (s->recording && (s->ticks < want || !released(s, came)) &&
	       pthread_cond_timedwait(&s->ticked, &s->lock, &until) == 0)
		;
	s->scrape_waiting--;
	pthread_mutex_unlock(&s->lock);
}

static enum MHD_Result on_request(void *cls, struct MHD_Connection *conn, const char *url,
				  const char *method, const char *version, const char *upload,
				  size_t *upload_size, void **con_cls)
{
	struct serve *s = cls;
	const char *accept;
	size_t len = 0;
	char *body;
	int om;

	(void)version;
	(void)upload;
	(void)upload_size;
	(void)con_cls;
	pthread_mutex_lock(&s->guard_lock);
	fol_conn_guard_request(s->guard, conn, fol_mono_ns());
	pthread_mutex_unlock(&s->guard_lock);
	if (strcmp(method, "GET") && strcmp(method, "HEAD"))
		return reply(conn, MHD_HTTP_METHOD_NOT_ALLOWED, strdup("GET only\n"), 9, "text/plain");
	if (!strcmp(url, "/healthz")) {
		int ok = s->recording && !s->cgroup_gone;

		body = strdup(s->cgroup_gone ? "not counting: the cgroup of -G was removed\n"
			      : s->recording ? "ok\n" : "not counting yet: the events are being opened\n");
		return reply(conn, ok ? MHD_HTTP_OK : MHD_HTTP_SERVICE_UNAVAILABLE, body,
			     body ? strlen(body) : 0, "text/plain");
	}
	if (strcmp(url, "/metrics")) {
		body = strdup("foliostat serve: /metrics and /healthz\n");
		return reply(conn, MHD_HTTP_NOT_FOUND, body, body ? strlen(body) : 0, "text/plain");
	}
	/* Metrics before every program is attached would be counts of part of the faults. */
	if (!s->recording) {
		body = strdup("not counting yet: the events are being opened; /healthz says when\n");
		return reply(conn, MHD_HTTP_SERVICE_UNAVAILABLE, body, body ? strlen(body) : 0, "text/plain");
	}
	wait_counted(s);
	accept = mhd.lookup_connection_value(conn, MHD_HEADER_KIND, MHD_HTTP_HEADER_ACCEPT);
	om = accept && strstr(accept, "application/openmetrics-text");
	body = render(s, om, &len);
	if (!body)
		return reply(conn, MHD_HTTP_INTERNAL_SERVER_ERROR, strdup("out of memory\n"), 14,
			     "text/plain");
	return reply(conn, MHD_HTTP_OK, body, len,
		     om ? "application/openmetrics-text; version=1.0.0; charset=utf-8"
			: "text/plain; version=0.0.4; charset=utf-8");
}

/* Each connection kept to its peer's share and its deadline (connguard.h). The guard
 * holds a descriptor of its own of each socket: shut down from the tick's thread, it is
 * one the server cannot have closed and reused. */
static void on_connection(void *cls, struct MHD_Connection *conn, void **socket_context,
			  enum MHD_ConnectionNotificationCode code)
{
	struct serve *s = cls;
	const union MHD_ConnectionInfo *ci;
	int fd, local, own;
	uint64_t peer = 0;
	uint32_t uid;

	(void)socket_context;
	if (code == MHD_CONNECTION_NOTIFY_CLOSED) {
		pthread_mutex_lock(&s->guard_lock);
		own = fol_conn_guard_remove(s->guard, conn);
		pthread_mutex_unlock(&s->guard_lock);
		if (own >= 0)
			close(own);
		return;
	}
	ci = mhd.get_connection_info(conn, MHD_CONNECTION_INFO_CONNECTION_FD);
	fd = ci ? ci->connect_fd : -1;
	if (fd < 0)
		return;
	/* Found outside the lock the server's other threads and the tick take: a netlink
	 * request, or a scan of /proc/net/tcp where there is no inet_diag. */
	if (fol_peer_of(fd, &peer, &local, &uid))
		peer = 0; /* not TCP: all such peers are one */
	own = fcntl(fd, F_DUPFD_CLOEXEC, 0);
	pthread_mutex_lock(&s->guard_lock);
	if (own >= 0 && !fol_conn_guard_add(s->guard, conn, own, peer, fol_mono_ns()))
		own = -2; /* the guard's now */
	pthread_mutex_unlock(&s->guard_lock);
	if (own == -2)
		return;
	if (own >= 0)
		close(own);
	shutdown(fd, SHUT_RDWR);
}

/* Descriptors up to the hard limit: the server may hold SERVER_CONNECTIONS sockets beside
 * the recorder's events, past the soft limit a service starts with (1024 under systemd). */
static void raise_fd_limit(void)
{
	struct rlimit rl;

	if (!getrlimit(RLIMIT_NOFILE, &rl) && rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max;
		setrlimit(RLIMIT_NOFILE, &rl);
	}
}

/* Connections past their deadline, ended: the server sees them close. */
static void end_late(struct serve *s)
{
	int fds[MAX_CONNECTIONS], n;

	pthread_mutex_lock(&s->guard_lock);
	n = fol_conn_guard_expired(s->guard, fol_mono_ns(), fds, MAX_CONNECTIONS);
	for (int i = 0; i < n; i++)
		shutdown(fds[i], SHUT_RDWR);
	pthread_mutex_unlock(&s->guard_lock);
}

/* ADDR:PORT, [V6ADDR]:PORT or PORT (on 127.0.0.1), bound and listening: the socket, or
 * the exit status of the error (said). */
static int listen_on(const char *spec, int *fd, int *v6)
{
	char host[256], *colon;
	const char *port;
	struct addrinfo hints = { .ai_socktype = SOCK_STREAM,
				  .ai_flags = AI_NUMERICHOST | AI_NUMERICSERV | AI_PASSIVE },
			*ai = NULL;
	int one = 1, ret;

	if (strlen(spec) >= sizeof(host))
		return usage_error("--listen %s: too long", spec);
	strcpy(host, spec);
	colon = strrchr(host, ':');
	if (!colon) {
		snprintf(host, sizeof(host), "127.0.0.1");
		port = spec;
	} else {
		*colon = '\0';
		port = colon + 1;
	}
	if (host[0] == '[' && host[strlen(host) - 1] == ']') {
		memmove(host, host + 1, strlen(host));
		host[strlen(host) - 1] = '\0';
	}
	/* Port 0 is any port: served where nobody would look ("http:///metrics"). */
	if (!*port || strspn(port, "0") == strlen(port))
		return usage_error("--listen %s: no port: ADDR:PORT with a port from 1 to 65535 "
				   "(127.0.0.1:9470)", spec);
	ret = getaddrinfo(host, port, &hints, &ai);
	if (ret)
		return usage_error("--listen %s: ADDR:PORT with a numeric address and port "
				   "(127.0.0.1:9470, [::1]:9470): %s", spec, gai_strerror(ret));
	*v6 = ai->ai_family == AF_INET6;
	*fd = socket(ai->ai_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (*fd < 0 || setsockopt(*fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) ||
	    bind(*fd, ai->ai_addr, ai->ai_addrlen) || listen(*fd, SOMAXCONN)) {
		ret = error("cannot listen on %s: %s%s", spec, strerror(errno),
			    errno == EADDRINUSE ? " (another server has that port: choose another "
						  "with --listen)" : "");
		if (*fd >= 0)
			close(*fd);
		freeaddrinfo(ai);
		return ret;
	}
	freeaddrinfo(ai);
	return 0;
}

static int serve_parse(struct serve *s, int argc, char **argv)
{
	struct rec_cli *c = &s->c;
	const struct opt opts[] = {
		OPT_STRING(0, "listen", &s->listen, "ADDR:PORT",
			   "where to serve /metrics (default " DEFAULT_LISTEN "; a\n"
			   "PORT alone listens on 127.0.0.1)"),
		OPT_SET_INT('a', "all-cpus", &c->o.system_wide, 1, "every task on every CPU (the default)"),
		OPT_STRING('G', "cgroup", &c->o.cgroup, "CGROUP",
			   "only the tasks of this cgroup (v2) and those below it;\n"
			   "their metrics are labelled by cgroup (no kernel reuse:\n"
			   "the programs do not select tasks)"),
		OPT_SET_INT(0, "by-cgroup", &s->by_cgroup, 1,
			    "label every metric by the cgroup of the faulting process"),
		OPT_INTEGER(0, "max-cgroups", &s->max_cgroups, "N", 1, MAX_CGROUPS_LIMIT,
			    "a number of cgroups from 1 to 10000",
			    "label sets at most: the faults of more cgroups are\n"
			    "counted under cgroup=\"other\" (default 64)"),
		OPT_INTEGER(0, "cgroup-linger", &s->linger, "SECONDS", 0, 86400,
			    "a number of seconds from 0 to 86400",
			    "how long a removed cgroup's metrics stay, its last\n"
			    "counts for the scrapes to come (default 120)"),
		OPT_CALLBACK(0, "duration", &s->duration, "S", rec_opt_duration,
			     "stop after S seconds (default: a signal)"),
		OPT_INTEGER(0, "sample", &s->sample, "N", 1, 1000000, "a number from 1 to 1000000",
			    "time one fault in N, drawn at random in the kernel;\n"
			    "every fault is still counted (default 1: each one\n"
			    "timed). The histogram's counts are multiplied by N\n"
			    "and labelled sample=\"1/N\"; needs the BPF path"),
		OPT_CALLBACK(0, "fault-path", &s->c, "P", rec_opt_fault_path,
			     "bpf (each fault's entry and exit paired in the kernel,\n"
			     "one record per fault), samples (two samples per fault),\n"
			     "auto (default: bpf where the machine allows it)"),
		OPT_SET_INT(0, "no-kernel-decisions", &s->no_kernel_reuse, 1,
			    "write every fault out for the model, none counted\n"
			    "in the kernel (the BPF path's default)"),
		OPT_SET_INT(0, "no-kernel-reuse", &s->no_kernel_reuse, 1,
			    "the same (its name before allocations were\n"
			    "decided in the kernel too)"),
		OPT_END(),
	};
	int ret = parse_options(argc, argv, opts, &serve_usage, 0);

	if (ret)
		return ret;
	if (optind < argc)
		return usage_error("serve records every task (-a): it takes no command");
	c->o.system_wide = 1;
	c->o.mmap_pages = FOL_RECORD_DEFAULT_PAGES;
	c->output = "the exporter";
	c->quiet = 1;
	c->duration = s->duration;
	s->by_cgroup |= c->o.cgroup != NULL;
	c->o.kernel_reuse = !s->no_kernel_reuse; /* the recorder leaves it off with -G */
	c->o.by_cgroup = s->by_cgroup;
	c->o.sample = (unsigned)s->sample;
	c->o.no_counters = 1;
	c->o.live = 1;
	if (!s->listen)
		s->listen = DEFAULT_LISTEN;
	return 0;
}

static void serve_tick(void *ctx)
{
	struct serve *s = ctx;
	int waiting, policy;

	pthread_mutex_lock(&s->lock);
	waiting = s->scrape_waiting;
	pthread_mutex_unlock(&s->lock);
	end_late(s);
	if (fol_kcounts_tick(s->kc, s->c.running, waiting)) {
		s->cgroup_gone = 1;
		fprintf(stderr, "foliostat serve: cgroup %s was removed: nothing more is counted "
				"(/healthz says 503); restart serve with a cgroup that exists\n",
			s->c.o.cgroup);
	}
	fol_live_trim(s->l);
	policy = fol_live_policy_tick(s->l);
	if (policy >= 0)
		fol_recorder_huge_zero(s->c.running, policy);
	/* Said once it counts: a serve that cannot record (not root) printed its URL, then
	 * failed. */
	if (!s->recording)
		fprintf(stderr, "foliostat serve: http://%s/metrics\n", s->listen);
	pthread_mutex_lock(&s->lock);
	s->recording = 1;
	s->ticks++;
	pthread_cond_broadcast(&s->ticked);
	pthread_mutex_unlock(&s->lock);
}

int cmd_serve(int argc, char **argv)
{
	struct serve s = { .lock = PTHREAD_MUTEX_INITIALIZER, .ticked = PTHREAD_COND_INITIALIZER,
			   .guard_lock = PTHREAD_MUTEX_INITIALIZER, .linger = DEFAULT_LINGER_S };
	struct fol_writer *w = NULL;
	struct MHD_Daemon *d;
	struct timespec now;
	struct utsname u;
	int status = serve_parse(&s, argc, argv), ret, fd = -1, v6 = 0;

	if (status)
		return status < 0 ? 0 : status;
	raise_fd_limit();
	fol_live_malloc_policy();
	status = mhd_open();
	if (!status)
		status = listen_on(s.listen, &fd, &v6);
	if (status)
		return status;
	clock_gettime(CLOCK_REALTIME, &now);
	s.started_ns = (uint64_t)now.tv_sec * 1000000000ull + (uint64_t)now.tv_nsec;
	if (!uname(&u))
		snprintf(s.kernel, sizeof(s.kernel), "%s", u.release);
	s.guard = fol_conn_guard_new(MAX_CONNECTIONS, MAX_PEER_CONNECTIONS, REQUEST_DEADLINE_NS);
	ret = s.guard ? fol_live_open(&s.l, &s.lock, &w) : -ENOMEM;
	if (!ret)
		ret = fol_live_add_tally(s.l, &(struct fol_tally_opts){ .by = s.by_cgroup ? FOL_BY_CGROUP : FOL_BY_ALL,
								    .cell_hist = 1,
								    .max_rows = s.max_cgroups,
								    .linger_ns = (uint64_t)s.linger * 1000000000ull },
				     &s.tally);
	if (!ret)
		ret = fol_kcounts_new(&s.kc, &(struct fol_kcounts_opts){ .tally = s.tally,
									 .by_cgroup = s.by_cgroup,
									 .lock = &s.lock,
									 .cgroup = s.c.o.cgroup });
	if (ret) {
		close(fd);
		fol_writer_close(w);
		fol_live_close(s.l);
		fol_kcounts_free(s.kc);
		fol_conn_guard_free(s.guard);
		return error("out of memory");
	}
	d = mhd.start_daemon(MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_EPOLL | (v6 ? MHD_USE_IPv6 : 0), 0,
			     NULL, NULL, on_request, &s, MHD_OPTION_LISTEN_SOCKET, fd,
			     MHD_OPTION_CONNECTION_LIMIT, SERVER_CONNECTIONS, MHD_OPTION_THREAD_POOL_SIZE,
			     SERVER_THREADS, MHD_OPTION_CONNECTION_TIMEOUT, 10, MHD_OPTION_NOTIFY_CONNECTION,
			     on_connection, &s, MHD_OPTION_END);
	if (!d) {
		close(fd);
		fol_writer_close(w);
		fol_live_close(s.l);
		fol_kcounts_free(s.kc);
		fol_conn_guard_free(s.guard);
		return error("cannot start the HTTP server on %s", s.listen);
	}
	s.c.tick = serve_tick;
	s.c.tick_ctx = &s;
	rec_signals_install();
	ret = record_one(&s.c, w, &status);
	rec_signals_restore();
	pthread_mutex_lock(&s.lock);
	s.recording = 0;
	pthread_cond_broadcast(&s.ticked);
	pthread_mutex_unlock(&s.lock);
	fol_writer_close(w);
	mhd.stop_daemon(d);
	close(fd);
	fol_live_close(s.l);
	fol_kcounts_free(s.kc);
	fol_conn_guard_free(s.guard);
	return ret ? (status ? status : 1) : 0;
}
#endif
