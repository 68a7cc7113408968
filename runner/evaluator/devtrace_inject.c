/* The device trace's injection library (devtrace.py): loaded by the CUDA driver itself when a
 * runner process first initialises CUDA (CUDA_INJECTION64_PATH), before any of the candidate's code
 * can run there. It turns on CUPTI's activity records for kernels, copies and memsets and writes
 * each one, as it arrives, to a pipe whose reading end only the judge holds (GAUNTLET_DEVTRACE_FD).
 *
 * Why a C library and not a Python watch: everything the candidate's Python can reach by name, it
 * can change (docs/evaluation.md, issue 30). This library has no Python name; what it records comes
 * from the driver; a candidate that silences it stops the harness's own marker kernels from being
 * recorded too, which the judge sees. (Native code in the same process can still reach it: that is
 * said in the threat model, not hidden.)
 *
 * Record: a 48-byte little-endian header (devtrace.RECORD) and up to NAME_MAX_BYTES of name; one
 * write() each, under PIPE_BUF, so records of several threads or processes never interleave.
 */
#include <cupti.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define TRACE_MAGIC 0x31525447u /* "GTR1" */
#define NAME_MAX_BYTES 200
#define BUFFER_BYTES (4u << 20)
#define FLUSH_PERIOD_MS 10
/* The longest a runner's timed batch holds the periodic flush off (gauntlet_devtrace_hold): a hold
 * that is never released, by a runner killed mid-batch or by a candidate that calls it, lapses. */
#define HOLD_MAX_MS 2000

enum { REC_HELLO = 1, REC_KERNEL = 2, REC_MEMCPY = 3, REC_MEMSET = 4, REC_DROPPED = 5, REC_ERROR = 6 };

#pragma pack(push, 1)
typedef struct {
    uint32_t magic;
    uint16_t kind;
    uint16_t name_len;
    uint32_t pid;
    uint32_t stream;
    uint64_t start; /* device timestamps, ns */
    uint64_t end;
    uint32_t correlation; /* the launching API call's id: launch order within one process */
    uint32_t device;
    uint64_t amount; /* bytes of a copy or memset; blocks of a kernel; a count for DROPPED */
} trace_record;
#pragma pack(pop)

_Static_assert(sizeof(trace_record) == 48, "devtrace.RECORD is 48 bytes");

static int trace_fd = -1;
static uint32_t own_pid;

static void emit(uint16_t kind, uint32_t stream, uint64_t start, uint64_t end, uint32_t correlation,
                 uint32_t device, uint64_t amount, const char *name) {
    char buf[sizeof(trace_record) + NAME_MAX_BYTES];
    size_t n = name ? strnlen(name, NAME_MAX_BYTES) : 0;
    trace_record r = {TRACE_MAGIC, kind, (uint16_t)n, own_pid, stream, start, end, correlation, device, amount};
    memcpy(buf, &r, sizeof r);
    if (n)
        memcpy(buf + sizeof r, name, n);
    ssize_t written;
    do {
        written = write(trace_fd, buf, sizeof r + n);
    } while (written < 0 && errno == EINTR);
}

static const char *copy_kind(uint8_t kind) {
    switch (kind) {
    case CUPTI_ACTIVITY_MEMCPY_KIND_HTOD: return "memcpy HtoD";
    case CUPTI_ACTIVITY_MEMCPY_KIND_DTOH: return "memcpy DtoH";
    case CUPTI_ACTIVITY_MEMCPY_KIND_DTOD: return "memcpy DtoD";
    case CUPTI_ACTIVITY_MEMCPY_KIND_HTOH: return "memcpy HtoH";
    case CUPTI_ACTIVITY_MEMCPY_KIND_PTOP: return "memcpy PtoP";
    default: return "memcpy other";
    }
}

static void CUPTIAPI buffer_requested(uint8_t **buffer, size_t *size, size_t *max_records) {
    void *p = NULL;
    *buffer = NULL;
    *size = 0;
    *max_records = 0;
    if (posix_memalign(&p, 8, BUFFER_BYTES) == 0) {
        *buffer = p;
        *size = BUFFER_BYTES;
    }
}

static void CUPTIAPI buffer_completed(CUcontext ctx, uint32_t stream_id, uint8_t *buffer, size_t size,
                                      size_t valid) {
    CUpti_Activity *record = NULL;
    (void)size;
    while (valid && cuptiActivityGetNextRecord(buffer, valid, &record) == CUPTI_SUCCESS) {
        switch (record->kind) {
        case CUPTI_ACTIVITY_KIND_KERNEL:
        case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL: {
            CUpti_ActivityKernel10 *k = (CUpti_ActivityKernel10 *)record;
            uint64_t blocks = (uint64_t)k->gridX * (uint64_t)k->gridY * (uint64_t)k->gridZ;
            emit(REC_KERNEL, k->streamId, k->start, k->end, k->correlationId, k->deviceId, blocks, k->name);
            break;
        }
        case CUPTI_ACTIVITY_KIND_MEMCPY: {
            CUpti_ActivityMemcpy6 *m = (CUpti_ActivityMemcpy6 *)record;
            emit(REC_MEMCPY, m->streamId, m->start, m->end, m->correlationId, m->deviceId, m->bytes,
                 copy_kind(m->copyKind));
            break;
        }
        case CUPTI_ACTIVITY_KIND_MEMSET: {
            CUpti_ActivityMemset4 *m = (CUpti_ActivityMemset4 *)record;
            emit(REC_MEMSET, m->streamId, m->start, m->end, m->correlationId, m->deviceId, m->bytes, "memset");
            break;
        }
        default:
            break;
        }
    }
    size_t dropped = 0;
    if (cuptiActivityGetNumDroppedRecords(ctx, stream_id, &dropped) == CUPTI_SUCCESS && dropped)
        emit(REC_DROPPED, stream_id, 0, 0, 0, 0, dropped, "dropped");
    free(buffer);
}

static int64_t now_ms(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (int64_t)t.tv_sec * 1000 + t.tv_nsec / 1000000;
}

/* Until when (CLOCK_MONOTONIC ms) the flusher stays quiet: a timed batch's first HOLD_MAX_MS. On
 * an H200 a traced timed call cost the host +299 us with the flusher asking every 10 ms through the
 * batch, +98 us held (bench/trace_call_cost.py, results/gpu-2026-11-30-s18.md); the batch's own
 * forced flush at its end hands over its records either way. `flushing` is held around each of the
 * flusher's asks, so that a hold waits out one already under way. */
static int64_t hold_until_ms;
static pthread_mutex_t flushing = PTHREAD_MUTEX_INITIALIZER;

/* CUPTI's own flush period (cuptiActivityFlushPeriod) handed over nothing on an H200 in 0.5 s
 * (bench/devtrace_cost.py, results/gpu-2026-11-28c.md): only an explicit flush did. So a thread
 * of the library's asks every FLUSH_PERIOD_MS for the buffers whose records are complete (CUPTI's
 * default flush, made for this), and records reach the judge even from a runner that is killed,
 * or that never asks (a process the runner started). */
static void *flusher(void *unused) {
    (void)unused;
    struct timespec period = {0, FLUSH_PERIOD_MS * 1000000L};
    for (;;) {
        nanosleep(&period, NULL);
        pthread_mutex_lock(&flushing);
        if (now_ms() >= __atomic_load_n(&hold_until_ms, __ATOMIC_RELAXED))
            cuptiActivityFlushAll(0);
        pthread_mutex_unlock(&flushing);
    }
    return NULL;
}

/* Called by the CUDA driver at cuInit. Returns 1 whatever happens: a trace that could not start
 * says so on the pipe (REC_ERROR), and the judge notes it; CUDA itself must go on. */
int InitializeInjection(void) {
    const char *fd = getenv("GAUNTLET_DEVTRACE_FD");
    if (fd == NULL || trace_fd >= 0)
        return 1;
    trace_fd = atoi(fd);
    own_pid = (uint32_t)getpid();
    fcntl(trace_fd, F_SETFD, FD_CLOEXEC); /* nothing the runner execs inherits the judge's pipe */
    CUptiResult r = cuptiActivityRegisterCallbacks(buffer_requested, buffer_completed);
    if (r == CUPTI_SUCCESS)
        r = cuptiActivityEnable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL);
    if (r == CUPTI_SUCCESS)
        r = cuptiActivityEnable(CUPTI_ACTIVITY_KIND_MEMCPY);
    if (r == CUPTI_SUCCESS)
        r = cuptiActivityEnable(CUPTI_ACTIVITY_KIND_MEMSET);
    if (r == CUPTI_SUCCESS) {
        pthread_t thread;
        if (pthread_create(&thread, NULL, flusher, NULL) == 0)
            pthread_detach(thread);
    }
    uint32_t version = 0;
    cuptiGetVersion(&version);
    if (r == CUPTI_SUCCESS) {
        emit(REC_HELLO, 0, 0, 0, 0, 0, version, "cupti");
    } else {
        const char *why = NULL;
        cuptiGetResultString(r, &why);
        emit(REC_ERROR, 0, 0, 0, 0, 0, (uint64_t)r, why ? why : "cupti error");
    }
    return 1;
}

/* The runner asks for this after each timed batch (outside a hold the flush period delivers anyway). */
void gauntlet_devtrace_flush(void) {
    cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
}

/* The runner's timed batch: the periodic flush waits (at most HOLD_MAX_MS) until it ends (on = 0),
 * when the runner's forced flush hands over the batch. Records a caller withholds this way (and by
 * skipping the forced flush) leave their markers missing, which the judge reads (devtrace.py). */
void gauntlet_devtrace_hold(int on) {
    __atomic_store_n(&hold_until_ms, on ? now_ms() + HOLD_MAX_MS : 0, __ATOMIC_RELAXED);
    if (on) { /* a flush under way ends before the batch starts */
        pthread_mutex_lock(&flushing);
        pthread_mutex_unlock(&flushing);
    }
}
