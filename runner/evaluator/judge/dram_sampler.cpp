/* The device's DRAM counters, sampled for the whole device from a process of the judge's
 * (judge/dram.py builds, starts and reads it; C++ only for CUPTI's host header).
 *
 * Why: whether a call ran with its inputs in the L2 is a fact about the device, not about the
 * kernels the trace names. A flush pointed elsewhere (the harness's reduction over memory the L2
 * already holds) launches the same kernel, with the same blocks, for as long; only the DRAM
 * traffic differs. CUPTI's PM sampling reads the device's performance monitors at a fixed
 * interval, device-wide, from this process: nothing in the candidate's process hosts it.
 *
 *   dram_sampler DEVICE INTERVAL_NS OUT [METRIC ...]   samples until SIGTERM/SIGINT, then drains
 *   dram_sampler DEVICE --list OUT                     the PM-sampling base metrics of the chip
 *
 * OUT gets one line per sample: "start_ns end_ns value...", after a header "# chip=... metrics=..."
 * and before a trailer "# samples=N passes=P overflow=0|1 ...", flushed after every decode pass.
 * Sample times are the device's globaltimer; "# clock HOST_NS GPU_NS RTT_NS" lines pair it with the
 * host's CLOCK_REALTIME (a one-thread kernel of this process reads %globaltimer; HOST_NS is the
 * middle of the launch-to-return span, RTT_NS its length): one after start, one more per SIGUSR1
 * (the judge asks while no runner works: the kernel is this context's, and a context switch). "ready"
 * goes to stdout once sampling has started. Any CUPTI failure is one line "error: <call>: <CUPTI's
 * words>" on stderr and exit code 2 (insufficient privileges is the likeliest on a shared host).
 * It dies with the process that started it (GAUNTLET_SAMPLER_PARENT: that process's pid): a judge
 * killed mid-evaluation must not leave the device's PM sampling held (CUPTI_ERROR_HARDWARE_BUSY for
 * every later judge on the machine: seen on an H200, 2026-12-02).
 */
#include <cupti.h>
#include <cupti_pmsampling.h>
#include <cupti_profiler_host.h>
#include <cupti_profiler_target.h>
#include <cupti_target.h>
#include <dlfcn.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <unistd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static volatile sig_atomic_t stop_asked = 0, clock_asked = 0;
static void on_signal(int sig) { (void)sig; stop_asked = 1; }
static void on_clock(int sig) { (void)sig; clock_asked = 1; }

static void fail(const char *call, CUptiResult res) {
    const char *words = "";
    cuptiGetResultString(res, &words);
    fprintf(stderr, "error: %s: %s (%d)\n", call, words, (int)res);
    exit(2);
}
#define CHECK(call) do { CUptiResult _r = (call); if (_r != CUPTI_SUCCESS) fail(#call, _r); } while (0)

/* A context of our own on the device (CUPTI's profiler wants one in the process); the driver is
 * opened at run time so that this builds where only CUPTI's headers and library are. */
static void *cuda = NULL;

static void driver_context(int device) {
    cuda = dlopen("libcuda.so.1", RTLD_NOW | RTLD_GLOBAL);
    if (!cuda) { fprintf(stderr, "error: dlopen libcuda.so.1: %s\n", dlerror()); exit(2); }
    int (*cuInit)(unsigned) = (int (*)(unsigned))dlsym(cuda, "cuInit");
    int (*cuDeviceGet)(int *, int) = (int (*)(int *, int))dlsym(cuda, "cuDeviceGet");
    int (*cuRetain)(void **, int) = (int (*)(void **, int))dlsym(cuda, "cuDevicePrimaryCtxRetain");
    int (*cuSetCurrent)(void *) = (int (*)(void *))dlsym(cuda, "cuCtxSetCurrent");
    int dev = 0;
    void *ctx = NULL;
    int rc;
    if (!cuInit || !cuDeviceGet || !cuRetain || !cuSetCurrent) { fprintf(stderr, "error: libcuda lacks an entry point\n"); exit(2); }
    if ((rc = cuInit(0)) || (rc = cuDeviceGet(&dev, device)) || (rc = cuRetain(&ctx, dev)) || (rc = cuSetCurrent(ctx))) {
        fprintf(stderr, "error: the driver refused a context (%d)\n", rc);
        exit(2);
    }
}

/* The globaltimer against the host's clock: a one-thread kernel stores %globaltimer; the pair with
 * the least launch-to-return span of five is kept. */
static const char CLOCK_PTX[] =
    ".version 8.0\n.target sm_75\n.address_size 64\n"
    ".visible .entry gauntlet_globaltimer(.param .u64 out) {\n"
    "  .reg .b64 %rd<3>;\n"
    "  ld.param.u64 %rd1, [out];\n"
    "  cvta.to.global.u64 %rd1, %rd1;\n"
    "  mov.u64 %rd2, %globaltimer;\n"
    "  st.global.u64 [%rd1], %rd2;\n"
    "  ret;\n}\n";

static unsigned long long realtime_ns(void) {
    struct timespec t;
    clock_gettime(CLOCK_REALTIME, &t);
    return (unsigned long long)t.tv_sec * 1000000000ull + (unsigned long long)t.tv_nsec;
}

static void clock_pair(FILE *out) {
    static void *function = NULL;
    static unsigned long long device_word = 0;
    typedef int (*load_t)(void **, const void *);
    typedef int (*get_t)(void **, void *, const char *);
    typedef int (*alloc_t)(unsigned long long *, size_t);
    typedef int (*launch_t)(void *, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, void *,
                            void **, void **);
    typedef int (*sync_t)(void);
    typedef int (*copy_t)(void *, unsigned long long, size_t);
    launch_t launch = (launch_t)dlsym(cuda, "cuLaunchKernel");
    sync_t sync = (sync_t)dlsym(cuda, "cuCtxSynchronize");
    copy_t copy = (copy_t)dlsym(cuda, "cuMemcpyDtoH_v2");
    if (!function) {
        load_t load = (load_t)dlsym(cuda, "cuModuleLoadData");
        get_t get = (get_t)dlsym(cuda, "cuModuleGetFunction");
        alloc_t alloc = (alloc_t)dlsym(cuda, "cuMemAlloc_v2");
        void *module = NULL;
        int rc;
        if (!load || !get || !alloc || !launch || !sync || !copy) { fprintf(out, "# clock error=entry points\n"); return; }
        if ((rc = load(&module, CLOCK_PTX)) || (rc = get(&function, module, "gauntlet_globaltimer"))
            || (rc = alloc(&device_word, 8))) {
            function = NULL;
            fprintf(out, "# clock error=%d\n", rc);
            return;
        }
    }
    unsigned long long best_host = 0, best_gpu = 0, best_rtt = ~0ull;
    for (int k = 0; k < 5; k++) {
        void *params[] = {&device_word};
        unsigned long long gpu = 0, before = realtime_ns();
        if (launch(function, 1, 1, 1, 1, 1, 1, 0, NULL, params, NULL) || sync()) { fprintf(out, "# clock error=launch\n"); return; }
        unsigned long long after = realtime_ns();
        if (copy(&gpu, device_word, 8)) { fprintf(out, "# clock error=copy\n"); return; }
        if (after - before < best_rtt) { best_rtt = after - before; best_host = before + (after - before) / 2; best_gpu = gpu; }
    }
    fprintf(out, "# clock %llu %llu %llu\n", best_host, best_gpu, best_rtt);
}

static uint8_t *availability(int device, size_t *size) {
    CUpti_PmSampling_GetCounterAvailability_Params p = {CUpti_PmSampling_GetCounterAvailability_Params_STRUCT_SIZE};
    p.deviceIndex = (size_t)device;
    CHECK(cuptiPmSamplingGetCounterAvailability(&p));
    uint8_t *image = (uint8_t *)calloc(1, p.counterAvailabilityImageSize);
    p.pCounterAvailabilityImage = image;
    CHECK(cuptiPmSamplingGetCounterAvailability(&p));
    *size = p.counterAvailabilityImageSize;
    return image;
}

static CUpti_Profiler_Host_Object *host_object(const char *chip, uint8_t *avail) {
    CUpti_Profiler_Host_Initialize_Params p = {CUpti_Profiler_Host_Initialize_Params_STRUCT_SIZE};
    p.profilerType = CUPTI_PROFILER_TYPE_PM_SAMPLING;
    p.pChipName = chip;
    p.pCounterAvailabilityImage = avail;
    CHECK(cuptiProfilerHostInitialize(&p));
    return p.pHostObject;
}

static double now_s(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec * 1e-9;
}

int main(int argc, char **argv) {
    if (argc < 4) {
        fprintf(stderr, "usage: pm_sampler DEVICE INTERVAL_NS OUT [METRIC ...] | DEVICE --list OUT\n");
        return 64;
    }
    const char *parent = getenv("GAUNTLET_SAMPLER_PARENT");
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (parent && getppid() != (pid_t)atol(parent)) return 3;     // it died before the line above
    int device = atoi(argv[1]);
    const char *out_path = argv[3];
    FILE *out = fopen(out_path, "w");
    if (!out) { perror(out_path); return 2; }

    driver_context(device);
    CUpti_Profiler_Initialize_Params init = {CUpti_Profiler_Initialize_Params_STRUCT_SIZE};
    CHECK(cuptiProfilerInitialize(&init));
    CUpti_Device_GetChipName_Params chip = {CUpti_Device_GetChipName_Params_STRUCT_SIZE};
    chip.deviceIndex = (size_t)device;
    CHECK(cuptiDeviceGetChipName(&chip));
    size_t avail_size = 0;
    uint8_t *avail = availability(device, &avail_size);
    CUpti_Profiler_Host_Object *host = host_object(chip.pChipName, avail);

    if (strcmp(argv[2], "--list") == 0) {
        for (int type = CUPTI_METRIC_TYPE_COUNTER; type < CUPTI_METRIC_TYPE__COUNT; type++) {
            CUpti_Profiler_Host_GetBaseMetrics_Params b = {CUpti_Profiler_Host_GetBaseMetrics_Params_STRUCT_SIZE};
            b.pHostObject = host;
            b.metricType = (CUpti_MetricType)type;
            CHECK(cuptiProfilerHostGetBaseMetrics(&b));
            for (size_t i = 0; i < b.numMetrics; i++)
                fprintf(out, "%d %s\n", type, b.ppMetricNames[i]);
        }
        fprintf(out, "# chip=%s\n", chip.pChipName);
        fclose(out);
        return 0;
    }

    uint64_t interval_ns = strtoull(argv[2], NULL, 10);
    const char *defaults[] = {"dram__bytes_read.sum", "dram__bytes_write.sum"};
    const char **metrics = argc > 4 ? (const char **)&argv[4] : defaults;
    size_t n_metrics = argc > 4 ? (size_t)(argc - 4) : 2;

    CUpti_Profiler_Host_ConfigAddMetrics_Params add = {CUpti_Profiler_Host_ConfigAddMetrics_Params_STRUCT_SIZE};
    add.pHostObject = host;
    add.ppMetricNames = metrics;
    add.numMetrics = n_metrics;
    CHECK(cuptiProfilerHostConfigAddMetrics(&add));
    CUpti_Profiler_Host_GetConfigImageSize_Params csize = {CUpti_Profiler_Host_GetConfigImageSize_Params_STRUCT_SIZE};
    csize.pHostObject = host;
    CHECK(cuptiProfilerHostGetConfigImageSize(&csize));
    uint8_t *config = (uint8_t *)calloc(1, csize.configImageSize);
    CUpti_Profiler_Host_GetConfigImage_Params cimage = {CUpti_Profiler_Host_GetConfigImage_Params_STRUCT_SIZE};
    cimage.pHostObject = host;
    cimage.configImageSize = csize.configImageSize;
    cimage.pConfigImage = config;
    CHECK(cuptiProfilerHostGetConfigImage(&cimage));
    CUpti_Profiler_Host_GetNumOfPasses_Params passes = {CUpti_Profiler_Host_GetNumOfPasses_Params_STRUCT_SIZE};
    passes.configImageSize = csize.configImageSize;
    passes.pConfigImage = config;
    CHECK(cuptiProfilerHostGetNumOfPasses(&passes));
    if (passes.numOfPasses != 1) {
        fprintf(stderr, "error: the metrics need %zu passes; PM sampling takes one\n", passes.numOfPasses);
        return 2;
    }

    CUpti_PmSampling_Enable_Params enable = {CUpti_PmSampling_Enable_Params_STRUCT_SIZE};
    enable.deviceIndex = (size_t)device;
    CHECK(cuptiPmSamplingEnable(&enable));
    CUpti_PmSampling_Object *sampler = enable.pPmSamplingObject;

    CUpti_PmSampling_SetConfig_Params set = {CUpti_PmSampling_SetConfig_Params_STRUCT_SIZE};
    set.pPmSamplingObject = sampler;
    set.configSize = csize.configImageSize;
    set.pConfig = config;
    set.hardwareBufferSize = (size_t)512 << 20;
    set.samplingInterval = interval_ns;
    set.triggerMode = CUPTI_PM_SAMPLING_TRIGGER_MODE_GPU_TIME_INTERVAL;
    set.hwBufferAppendMode = CUPTI_PM_SAMPLING_HARDWARE_BUFFER_APPEND_MODE_KEEP_OLDEST;
    CHECK(cuptiPmSamplingSetConfig(&set));

    /* The image holds a whole decode pass (a full image loses samples): 10 ms a pass, 1.5 times
     * what the interval gives in that time, and 64 more. */
    const double pass_s = 0.010;
    uint32_t slots = (uint32_t)(pass_s * 1e9 / (double)interval_ns * 1.5) + 64;
    CUpti_PmSampling_GetCounterDataSize_Params dsize = {CUpti_PmSampling_GetCounterDataSize_Params_STRUCT_SIZE};
    dsize.pPmSamplingObject = sampler;
    dsize.pMetricNames = metrics;
    dsize.numMetrics = n_metrics;
    dsize.maxSamples = slots;
    CHECK(cuptiPmSamplingGetCounterDataSize(&dsize));
    uint8_t *data = (uint8_t *)calloc(1, dsize.counterDataSize);
    if (!data) { fprintf(stderr, "error: no memory for %zu bytes of counter data\n", dsize.counterDataSize); return 2; }
    CUpti_PmSampling_CounterDataImage_Initialize_Params dinit = {CUpti_PmSampling_CounterDataImage_Initialize_Params_STRUCT_SIZE};
    dinit.pPmSamplingObject = sampler;
    dinit.counterDataSize = dsize.counterDataSize;
    dinit.pCounterData = data;
    CHECK(cuptiPmSamplingCounterDataImageInitialize(&dinit));

    fprintf(out, "# chip=%s interval_ns=%llu slots=%u metrics=", chip.pChipName, (unsigned long long)interval_ns, slots);
    for (size_t m = 0; m < n_metrics; m++) fprintf(out, "%s%s", m ? "," : "", metrics[m]);
    fprintf(out, "\n");

    signal(SIGTERM, on_signal);
    signal(SIGINT, on_signal);
    signal(SIGUSR1, on_clock);
    CUpti_PmSampling_Start_Params start = {CUpti_PmSampling_Start_Params_STRUCT_SIZE};
    start.pPmSamplingObject = sampler;
    CHECK(cuptiPmSamplingStart(&start));
    clock_pair(out);
    fflush(out);
    printf("ready\n");
    fflush(stdout);

    double *values = (double *)calloc(n_metrics, sizeof(double));
    unsigned long long samples = 0, empty = 0, n_pass = 0, full = 0;
    int overflow = 0, stopped = 0;
    double decode_s = 0;
    for (;;) {
        if (!stopped && stop_asked) {
            CUpti_PmSampling_Stop_Params stop = {CUpti_PmSampling_Stop_Params_STRUCT_SIZE};
            stop.pPmSamplingObject = sampler;
            CHECK(cuptiPmSamplingStop(&stop));
            stopped = 1;
        }
        if (!stopped) usleep((useconds_t)(pass_s * 1e6));
        if (!stopped && clock_asked) {
            clock_asked = 0;
            clock_pair(out);
        }
        double t0 = now_s();
        CUpti_PmSampling_DecodeData_Params dec = {CUpti_PmSampling_DecodeData_Params_STRUCT_SIZE};
        dec.pPmSamplingObject = sampler;
        dec.pCounterDataImage = data;
        dec.counterDataImageSize = dsize.counterDataSize;
        CUptiResult res = cuptiPmSamplingDecodeData(&dec);
        if (res == CUPTI_ERROR_OUT_OF_MEMORY || dec.overflow) { overflow = 1; break; }  /* permanent */
        if (res != CUPTI_SUCCESS) fail("cuptiPmSamplingDecodeData", res);
        if (dec.decodeStopReason == CUPTI_PM_SAMPLING_DECODE_STOP_REASON_COUNTER_DATA_FULL) full++;
        CUpti_PmSampling_GetCounterDataInfo_Params info = {CUpti_PmSampling_GetCounterDataInfo_Params_STRUCT_SIZE};
        info.pCounterDataImage = data;
        info.counterDataImageSize = dsize.counterDataSize;
        CHECK(cuptiPmSamplingGetCounterDataInfo(&info));
        for (size_t i = 0; i < info.numCompletedSamples; i++) {
            CUpti_PmSampling_CounterData_GetSampleInfo_Params s = {CUpti_PmSampling_CounterData_GetSampleInfo_Params_STRUCT_SIZE};
            s.pPmSamplingObject = sampler;
            s.pCounterDataImage = data;
            s.counterDataImageSize = dsize.counterDataSize;
            s.sampleIndex = i;
            CHECK(cuptiPmSamplingCounterDataGetSampleInfo(&s));
            if (s.startTimestamp == 0 || s.endTimestamp <= s.startTimestamp) { empty++; continue; }
            CUpti_Profiler_Host_EvaluateToGpuValues_Params ev = {CUpti_Profiler_Host_EvaluateToGpuValues_Params_STRUCT_SIZE};
            ev.pHostObject = host;
            ev.pCounterDataImage = data;
            ev.counterDataImageSize = dsize.counterDataSize;
            ev.rangeIndex = i;
            ev.ppMetricNames = metrics;
            ev.numMetrics = n_metrics;
            ev.pMetricValues = values;
            CHECK(cuptiProfilerHostEvaluateToGpuValues(&ev));
            fprintf(out, "%llu %llu", (unsigned long long)s.startTimestamp, (unsigned long long)s.endTimestamp);
            for (size_t m = 0; m < n_metrics; m++) fprintf(out, " %.0f", values[m]);
            fputc('\n', out);
            samples++;
        }
        CHECK(cuptiPmSamplingCounterDataImageInitialize(&dinit));
        n_pass++;
        decode_s += now_s() - t0;
        fflush(out);
        if (stopped && dec.decodeStopReason != CUPTI_PM_SAMPLING_DECODE_STOP_REASON_COUNTER_DATA_FULL) break;
    }
    fprintf(out, "# samples=%llu empty=%llu passes=%llu full=%llu overflow=%d decode_s=%.3f\n",
            samples, empty, n_pass, full, overflow, decode_s);
    fclose(out);
    CUpti_PmSampling_Disable_Params dis = {CUpti_PmSampling_Disable_Params_STRUCT_SIZE};
    dis.pPmSamplingObject = sampler;
    cuptiPmSamplingDisable(&dis);
    return overflow ? 3 : 0;
}
