// An LD_PRELOAD shim that fails one write-side filesystem call of a process with EIO: the N-th
// call of one class (FAULT_CLASS) that touches a file under FAULT_ROOT, counted across all the
// process's threads. benches/write_faults.sh drives it (see there and RELIABILITY.md).
//
// Why not `strace --inject=SYSCALL:error=EIO:when=N`: strace counts invocations per syscall
// *and per thread*, so in a process with a hashing thread and a runtime's workers the N-th call
// of each thread fails, not the N-th of the process; and it cannot tell a warehouse file from
// stderr or the runtime's eventfd, whose failures are not what is tested here.
//
// Classes and the calls in each (what perfhouse, through Rust's std and glibc, uses):
//   write   write, pwrite64, writev, pwritev, copy_file_range (the kernel copy of kept inputs)
//   fsync   fsync, fdatasync
//   rename  rename, renameat, renameat2
//   link    link, linkat
//   unlink  unlink, unlinkat (files and, with AT_REMOVEDIR, directories), rmdir
//   mkdir   mkdir, mkdirat
//   creat   open, open64, openat, openat64 with O_CREAT (a file created)
//
// Environment:
//   FAULT_ROOT   the directory whose files count (a warehouse); required
//   FAULT_CLASS  the class to count, or `all` (every class, one counter)
//   FAULT_N      the call to fail (1 = the first); 0 or unset: fail none, only count/log
//   FAULT_LOG    a file to append one line per counted call to: `N class call path`
//   FAULT_HIT    a file to write the failed call to (same form), so the driver knows where
//
// Build: cc -O2 -shared -fPIC -o faultshim.so benches/faultshim.c -ldl
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/uio.h>
#include <unistd.h>

static char root[PATH_MAX];
static size_t root_len;
static char class_want[16];
static long fail_at;
static atomic_long counter;
static int inited;

static void init(void) {
    if (inited) return;
    const char *r = getenv("FAULT_ROOT");
    if (r && realpath(r, root)) root_len = strlen(root);
    else if (r) { strncpy(root, r, sizeof root - 1); root_len = strlen(root); }
    const char *c = getenv("FAULT_CLASS");
    strncpy(class_want, c ? c : "all", sizeof class_want - 1);
    const char *n = getenv("FAULT_N");
    fail_at = n ? atol(n) : 0;
    inited = 1;
}

// The absolute path `name` resolves to relative to `dirfd` (or the working directory), lexically:
// only the prefix matters, and the file may not exist yet.
static void resolve(int dirfd, const char *name, char *out) {
    if (!name) { out[0] = 0; return; }
    if (name[0] == '/') { strncpy(out, name, PATH_MAX - 1); out[PATH_MAX - 1] = 0; return; }
    char base[PATH_MAX];
    if (dirfd == AT_FDCWD) {
        if (!getcwd(base, sizeof base)) base[0] = 0;
    } else {
        char link[64];
        snprintf(link, sizeof link, "/proc/self/fd/%d", dirfd);
        ssize_t k = readlink(link, base, sizeof base - 1);
        base[k > 0 ? k : 0] = 0;
    }
    snprintf(out, PATH_MAX, "%s/%s", base, name);
}

static void fd_path(int fd, char *out) {
    char link[64];
    snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
    ssize_t k = readlink(link, out, PATH_MAX - 1);
    out[k > 0 ? k : 0] = 0;
}

static int under_root(const char *path) {
    // The lexical path may hold `..` or a symlinked prefix; the canonical one of its directory
    // decides where realpath can tell.
    if (!root_len) return 0;
    if (strncmp(path, root, root_len) == 0 && (path[root_len] == '/' || path[root_len] == 0)) return 1;
    char dir[PATH_MAX], canon[PATH_MAX];
    strncpy(dir, path, sizeof dir - 1);
    dir[sizeof dir - 1] = 0;
    char *slash = strrchr(dir, '/');
    if (slash && slash != dir) *slash = 0;
    if (!realpath(dir, canon)) return 0;
    size_t n = strlen(canon);
    return strncmp(canon, root, root_len) == 0 && (n == root_len || canon[root_len] == '/');
}

static void log_line(const char *env, long n, const char *cls, const char *call, const char *path) {
    const char *file = getenv(env);
    if (!file) return;
    int saved = errno;
    static int (*real_open)(const char *, int, ...);
    static ssize_t (*real_write)(int, const void *, size_t);
    if (!real_open) real_open = dlsym(RTLD_NEXT, "open");
    if (!real_write) real_write = dlsym(RTLD_NEXT, "write");
    int fd = real_open(file, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
    if (fd >= 0) {
        char line[PATH_MAX + 96];
        int k = snprintf(line, sizeof line, "%ld %s %s %s\n", n, cls, call, path);
        if (k > 0) real_write(fd, line, (size_t)k < sizeof line ? (size_t)k : sizeof line - 1);
        close(fd);
    }
    errno = saved;
}

// 1 where this call is to fail (errno set to EIO), 0 where it goes through.
static int counted(const char *cls, const char *call, const char *path) {
    init();
    if (!path || !path[0] || !under_root(path)) return 0;
    if (strcmp(class_want, "all") != 0 && strcmp(class_want, cls) != 0) return 0;
    long n = atomic_fetch_add(&counter, 1) + 1;
    log_line("FAULT_LOG", n, cls, call, path);
    if (fail_at > 0 && n == fail_at) {
        log_line("FAULT_HIT", n, cls, call, path);
        errno = EIO;
        return 1;
    }
    return 0;
}

#define REAL(ret, name, ...)                                   \
    static ret (*real)(__VA_ARGS__);                           \
    if (!real) real = (ret(*)(__VA_ARGS__))dlsym(RTLD_NEXT, name)

static int by_fd(const char *cls, const char *call, int fd) {
    char p[PATH_MAX];
    fd_path(fd, p);
    return counted(cls, call, p);
}

static int by_path(const char *cls, const char *call, int dirfd, const char *name) {
    char p[PATH_MAX];
    resolve(dirfd, name, p);
    return counted(cls, call, p);
}

ssize_t write(int fd, const void *buf, size_t n) {
    REAL(ssize_t, "write", int, const void *, size_t);
    if (fd > 2 && by_fd("write", "write", fd)) return -1;
    return real(fd, buf, n);
}

ssize_t pwrite64(int fd, const void *buf, size_t n, off_t off) {
    REAL(ssize_t, "pwrite64", int, const void *, size_t, off_t);
    if (fd > 2 && by_fd("write", "pwrite64", fd)) return -1;
    return real(fd, buf, n, off);
}

ssize_t pwrite(int fd, const void *buf, size_t n, off_t off) {
    REAL(ssize_t, "pwrite", int, const void *, size_t, off_t);
    if (fd > 2 && by_fd("write", "pwrite", fd)) return -1;
    return real(fd, buf, n, off);
}

ssize_t writev(int fd, const struct iovec *iov, int cnt) {
    REAL(ssize_t, "writev", int, const struct iovec *, int);
    if (fd > 2 && by_fd("write", "writev", fd)) return -1;
    return real(fd, iov, cnt);
}

ssize_t pwritev(int fd, const struct iovec *iov, int cnt, off_t off) {
    REAL(ssize_t, "pwritev", int, const struct iovec *, int, off_t);
    if (fd > 2 && by_fd("write", "pwritev", fd)) return -1;
    return real(fd, iov, cnt, off);
}

ssize_t copy_file_range(int in, off_t *inoff, int out, off_t *outoff, size_t len, unsigned flags) {
    REAL(ssize_t, "copy_file_range", int, off_t *, int, off_t *, size_t, unsigned);
    if (by_fd("write", "copy_file_range", out)) return -1;
    return real(in, inoff, out, outoff, len, flags);
}

int fsync(int fd) {
    REAL(int, "fsync", int);
    if (by_fd("fsync", "fsync", fd)) return -1;
    return real(fd);
}

int fdatasync(int fd) {
    REAL(int, "fdatasync", int);
    if (by_fd("fsync", "fdatasync", fd)) return -1;
    return real(fd);
}

int rename(const char *a, const char *b) {
    REAL(int, "rename", const char *, const char *);
    if (by_path("rename", "rename", AT_FDCWD, b)) return -1;
    return real(a, b);
}

int renameat(int da, const char *a, int db, const char *b) {
    REAL(int, "renameat", int, const char *, int, const char *);
    if (by_path("rename", "renameat", db, b)) return -1;
    return real(da, a, db, b);
}

int renameat2(int da, const char *a, int db, const char *b, unsigned flags) {
    REAL(int, "renameat2", int, const char *, int, const char *, unsigned);
    if (by_path("rename", "renameat2", db, b)) return -1;
    return real(da, a, db, b, flags);
}

int link(const char *a, const char *b) {
    REAL(int, "link", const char *, const char *);
    if (by_path("link", "link", AT_FDCWD, b)) return -1;
    return real(a, b);
}

int linkat(int da, const char *a, int db, const char *b, int flags) {
    REAL(int, "linkat", int, const char *, int, const char *, int);
    if (by_path("link", "linkat", db, b)) return -1;
    return real(da, a, db, b, flags);
}

int unlink(const char *p) {
    REAL(int, "unlink", const char *);
    if (by_path("unlink", "unlink", AT_FDCWD, p)) return -1;
    return real(p);
}

int unlinkat(int d, const char *p, int flags) {
    REAL(int, "unlinkat", int, const char *, int);
    if (by_path("unlink", "unlinkat", d, p)) return -1;
    return real(d, p, flags);
}

int rmdir(const char *p) {
    REAL(int, "rmdir", const char *);
    if (by_path("unlink", "rmdir", AT_FDCWD, p)) return -1;
    return real(p);
}

int mkdir(const char *p, mode_t m) {
    REAL(int, "mkdir", const char *, mode_t);
    if (by_path("mkdir", "mkdir", AT_FDCWD, p)) return -1;
    return real(p, m);
}

int mkdirat(int d, const char *p, mode_t m) {
    REAL(int, "mkdirat", int, const char *, mode_t);
    if (by_path("mkdir", "mkdirat", d, p)) return -1;
    return real(d, p, m);
}

static int creating(int flags) { return (flags & O_CREAT) || (flags & O_TMPFILE) == O_TMPFILE; }

#define OPEN_MODE()                       \
    mode_t mode = 0;                      \
    if (creating(flags)) {                \
        va_list ap;                       \
        va_start(ap, flags);              \
        mode = (mode_t)va_arg(ap, int);   \
        va_end(ap);                       \
    }

int open(const char *p, int flags, ...) {
    OPEN_MODE();
    REAL(int, "open", const char *, int, ...);
    if (creating(flags) && by_path("creat", "open", AT_FDCWD, p)) return -1;
    return real(p, flags, mode);
}

int open64(const char *p, int flags, ...) {
    OPEN_MODE();
    REAL(int, "open64", const char *, int, ...);
    if (creating(flags) && by_path("creat", "open64", AT_FDCWD, p)) return -1;
    return real(p, flags, mode);
}

int openat(int d, const char *p, int flags, ...) {
    OPEN_MODE();
    REAL(int, "openat", int, const char *, int, ...);
    if (creating(flags) && by_path("creat", "openat", d, p)) return -1;
    return real(d, p, flags, mode);
}

int openat64(int d, const char *p, int flags, ...) {
    OPEN_MODE();
    REAL(int, "openat64", int, const char *, int, ...);
    if (creating(flags) && by_path("creat", "openat64", d, p)) return -1;
    return real(d, p, flags, mode);
}
