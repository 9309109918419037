// The CUDA device interface, through the CUDA driver API. As for OpenCL, the driver is loaded
// with dlopen (libcuda.so.1, which NVIDIA's driver installs; DSL_LIBCUDA names another file),
// so that neither the compiler nor a generated library links against CUDA: a machine without
// it fails only when a kernel is launched, with a message that says so. The primary context
// of device 0 (DSL_CUDA_DEVICE=N picks device N) serves the process, current on every thread
// that calls in; each PTX module is loaded once (the driver assembles it for the GPU) and kept
// with its functions. Kernels run on the default stream, in order with the copies.
#define _GNU_SOURCE
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dsl/runtime/dsl_runtime.h"
#include "runtime/Runtime.h"

// The part of the CUDA driver API used here, declared from NVIDIA's documentation so that the
// runtime builds without the CUDA headers.
typedef int CUresult;
typedef int CUdevice;
typedef void *CUcontext;
typedef void *CUmodule;
typedef void *CUfunction;
typedef void *CUstream;
typedef unsigned long long CUdeviceptr;

enum {
    CUDA_SUCCESS = 0,
    CUDA_ERROR_NO_DEVICE = 100,
    CUDA_ERROR_NO_BINARY_FOR_GPU = 209,
    CUDA_ERROR_INVALID_PTX = 218,
    CUDA_ERROR_UNSUPPORTED_PTX_VERSION = 222,
    CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES = 701,
    CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR = 75,
    CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR = 76,
    CU_JIT_ERROR_LOG_BUFFER = 5,
    CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES = 6,
};

typedef struct Api {
    CUresult (*Init)(unsigned);
    CUresult (*DeviceGetCount)(int *);
    CUresult (*DeviceGet)(CUdevice *, int);
    CUresult (*DeviceGetName)(char *, int, CUdevice);
    CUresult (*DeviceGetAttribute)(int *, int, CUdevice);
    CUresult (*DevicePrimaryCtxRetain)(CUcontext *, CUdevice);
    CUresult (*CtxSetCurrent)(CUcontext);
    CUresult (*CtxSynchronize)(void);
    CUresult (*ModuleLoadDataEx)(CUmodule *, const void *, unsigned, int *, void **);
    CUresult (*ModuleGetFunction)(CUfunction *, CUmodule, const char *);
    CUresult (*MemAlloc)(CUdeviceptr *, size_t);
    CUresult (*MemFree)(CUdeviceptr);
    CUresult (*MemcpyHtoD)(CUdeviceptr, const void *, size_t);
    CUresult (*MemcpyDtoH)(void *, CUdeviceptr, size_t);
    CUresult (*LaunchKernel)(CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned,
                             unsigned, CUstream, void **, void **);
} Api;

typedef struct Function {
    char *name;
    CUfunction function;
    struct Function *next;
} Function;

typedef struct Module {
    char *ptx;
    uint64_t bytes;
    CUmodule module;
    Function *functions;
    struct Module *next;
} Module;

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static int initialized;  // 1 ready, -1 failed (the message is kept)
static char init_failure[512];
static Api api;
static CUdevice device;
static CUcontext context;
static int capability;  // of the device, e.g. 86
static Module *modules;

static int load_api(void) {
    const char *path = getenv("DSL_LIBCUDA");
    if (!path || !*path) path = "libcuda.so.1";
    void *lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
        snprintf(init_failure, sizeof(init_failure),
                 "no CUDA driver found (%s could not be loaded): CUDA pipelines compile here but "
                 "cannot run. Run them on a machine with an NVIDIA GPU and its driver, use the "
                 "target feature `opencl` instead, or set DSL_LIBCUDA to the driver's path.",
                 path);
        return 0;
    }
#define DSL_CU_SYMBOL(field, symbol)                                                            \
    do {                                                                                        \
        *(void **)&api.field = dlsym(lib, symbol);                                              \
        if (!api.field) {                                                                       \
            snprintf(init_failure, sizeof(init_failure),                                        \
                     "the CUDA driver %s has no " symbol "; it is older than CUDA 4.0.", path); \
            return 0;                                                                           \
        }                                                                                       \
    } while (0)
    DSL_CU_SYMBOL(Init, "cuInit");
    DSL_CU_SYMBOL(DeviceGetCount, "cuDeviceGetCount");
    DSL_CU_SYMBOL(DeviceGet, "cuDeviceGet");
    DSL_CU_SYMBOL(DeviceGetName, "cuDeviceGetName");
    DSL_CU_SYMBOL(DeviceGetAttribute, "cuDeviceGetAttribute");
    DSL_CU_SYMBOL(DevicePrimaryCtxRetain, "cuDevicePrimaryCtxRetain");
    DSL_CU_SYMBOL(CtxSetCurrent, "cuCtxSetCurrent");
    DSL_CU_SYMBOL(CtxSynchronize, "cuCtxSynchronize");
    DSL_CU_SYMBOL(ModuleLoadDataEx, "cuModuleLoadDataEx");
    DSL_CU_SYMBOL(ModuleGetFunction, "cuModuleGetFunction");
    DSL_CU_SYMBOL(MemAlloc, "cuMemAlloc_v2");
    DSL_CU_SYMBOL(MemFree, "cuMemFree_v2");
    DSL_CU_SYMBOL(MemcpyHtoD, "cuMemcpyHtoD_v2");
    DSL_CU_SYMBOL(MemcpyDtoH, "cuMemcpyDtoH_v2");
    DSL_CU_SYMBOL(LaunchKernel, "cuLaunchKernel");
#undef DSL_CU_SYMBOL
    return 1;
}

/// Loads the driver and picks the device. Called with the lock held.
static int initialize(void) {
    if (initialized) return initialized > 0;
    initialized = -1;
    if (!load_api()) return 0;
    CUresult err = api.Init(0);
    int count = 0;
    if (err == CUDA_SUCCESS) err = api.DeviceGetCount(&count);
    if (err != CUDA_SUCCESS || count == 0) {
        snprintf(init_failure, sizeof(init_failure),
                 "the CUDA driver finds no GPU (cuInit / cuDeviceGetCount: %d): CUDA pipelines "
                 "compile here but cannot run.",
                 (int)err);
        return 0;
    }
    const char *wanted_text = getenv("DSL_CUDA_DEVICE");
    int wanted = wanted_text ? atoi(wanted_text) : 0;
    if (wanted < 0 || wanted >= count) {
        snprintf(init_failure, sizeof(init_failure),
                 "CUDA device %d does not exist (%d found); check DSL_CUDA_DEVICE.", wanted, count);
        return 0;
    }
    int major = 0, minor = 0;
    err = api.DeviceGet(&device, wanted);
    if (err == CUDA_SUCCESS)
        err = api.DeviceGetAttribute(&major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, device);
    if (err == CUDA_SUCCESS)
        err = api.DeviceGetAttribute(&minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, device);
    if (err == CUDA_SUCCESS) err = api.DevicePrimaryCtxRetain(&context, device);
    if (err != CUDA_SUCCESS) {
        snprintf(init_failure, sizeof(init_failure),
                 "the CUDA driver could not open device %d (%d).", wanted, (int)err);
        return 0;
    }
    capability = major * 10 + minor;
    initialized = 1;
    return 1;
}

/// Makes the driver ready and the context current on this thread; reports on failure.
static int ready(void) {
    pthread_mutex_lock(&lock);
    int ok = initialize();
    pthread_mutex_unlock(&lock);
    if (!ok) {
        dsl_runtime_report(dsl_error_device_error, "Error: %s", init_failure);
        return 0;
    }
    CUresult err = api.CtxSetCurrent(context);
    if (err != CUDA_SUCCESS) {
        dsl_runtime_report(dsl_error_device_error, "Error: cuCtxSetCurrent failed (%d).", (int)err);
        return 0;
    }
    return 1;
}

static int cuda_malloc(dsl_buffer_t *b, uint64_t bytes) {
    if (!ready()) return dsl_error_device_error;
    CUdeviceptr p = 0;
    CUresult err = api.MemAlloc(&p, bytes ? bytes : 1);
    if (err != CUDA_SUCCESS)
        return dsl_runtime_report(
            dsl_error_out_of_memory,
            "Error: CUDA could not allocate %llu bytes of device memory (cuMemAlloc: %d).",
            (unsigned long long)bytes, (int)err);
    b->device = (uint64_t)p;
    return 0;
}

static int cuda_free(dsl_buffer_t *b) {
    if (!ready()) return dsl_error_device_error;
    CUresult err = api.MemFree((CUdeviceptr)b->device);
    if (err != CUDA_SUCCESS)
        return dsl_runtime_report(dsl_error_device_error, "Error: cuMemFree failed (%d).",
                                  (int)err);
    return 0;
}

static int cuda_copy_to_host(dsl_buffer_t *b, uint64_t bytes) {
    if (!ready()) return dsl_error_device_error;
    // Waits for the kernels before it on the default stream; their failures show here.
    CUresult err = api.MemcpyDtoH(b->host, (CUdeviceptr)b->device, bytes);
    if (err != CUDA_SUCCESS)
        return dsl_runtime_report(
            dsl_error_device_error,
            "Error: copying %llu bytes from the CUDA device failed (cuMemcpyDtoH: %d); a kernel "
            "before it may have failed (run with DSL_GPU_SYNC=1 to find which).",
            (unsigned long long)bytes, (int)err);
    return 0;
}

static int cuda_copy_to_device(dsl_buffer_t *b, uint64_t bytes) {
    if (!ready()) return dsl_error_device_error;
    CUresult err = api.MemcpyHtoD((CUdeviceptr)b->device, b->host, bytes);
    if (err != CUDA_SUCCESS)
        return dsl_runtime_report(
            dsl_error_device_error,
            "Error: copying %llu bytes to the CUDA device failed (cuMemcpyHtoD: %d).",
            (unsigned long long)bytes, (int)err);
    return 0;
}

static int cuda_sync(void) {
    if (!ready()) return dsl_error_device_error;
    CUresult err = api.CtxSynchronize();
    if (err != CUDA_SUCCESS)
        return dsl_runtime_report(dsl_error_device_error,
                                  "Error: a CUDA kernel failed (cuCtxSynchronize: %d).", (int)err);
    return 0;
}

DSL_RUNTIME_EXPORT const dsl_device_interface_t dsl_cuda_device_interface = {
    "CUDA", cuda_malloc, cuda_free, cuda_copy_to_host, cuda_copy_to_device, cuda_sync};

/// The function `name` of the module of `ptx`, loaded on first use. Called with the lock held;
/// reports and returns NULL on failure.
static CUfunction find_function(const char *ptx, uint64_t bytes, const char *name) {
    Module *m = modules;
    while (m && !(m->bytes == bytes && memcmp(m->ptx, ptx, bytes) == 0))
        m = m->next;
    if (!m) {
        char log[1024] = "";
        int options[] = {CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
        void *values[] = {log, (void *)(uintptr_t)(sizeof(log) - 1)};
        CUmodule module = NULL;
        CUresult err = api.ModuleLoadDataEx(&module, ptx, 2, options, values);
        if (err != CUDA_SUCCESS) {
            const char *hint =
                err == CUDA_ERROR_NO_BINARY_FOR_GPU || err == CUDA_ERROR_UNSUPPORTED_PTX_VERSION
                    ? "the PTX is for a newer GPU or a newer driver than this one; compile for "
                      "this GPU's compute capability (target feature cuda_capability_NN) or "
                      "update the driver"
                    : "this is a bug in dsl's PTX code generator";
            dsl_runtime_report(dsl_error_device_error,
                               "Error: the CUDA driver could not load the generated kernels "
                               "(cuModuleLoadDataEx: %d; the GPU is sm_%d): %s. Log: %s",
                               (int)err, capability, hint, log);
            return NULL;
        }
        m = (Module *)calloc(1, sizeof(Module));
        m->ptx = (char *)malloc(bytes);
        memcpy(m->ptx, ptx, bytes);
        m->bytes = bytes;
        m->module = module;
        m->next = modules;
        modules = m;
    }
    Function *f = m->functions;
    while (f && strcmp(f->name, name) != 0)
        f = f->next;
    if (!f) {
        CUfunction function = NULL;
        CUresult err = api.ModuleGetFunction(&function, m->module, name);
        if (err != CUDA_SUCCESS) {
            dsl_runtime_report(dsl_error_device_error,
                               "Error: cuModuleGetFunction(%s) failed (%d).", name, (int)err);
            return NULL;
        }
        f = (Function *)calloc(1, sizeof(Function));
        f->name = strdup(name);
        f->function = function;
        f->next = m->functions;
        m->functions = f;
    }
    return f->function;
}

/// The most arguments a kernel takes (each buffer, each scalar of its closure).
#define DSL_CUDA_MAX_ARGS 256
/// The most dynamic shared memory a launch may ask for without opting in per kernel
/// (cuFuncSetAttribute), on every GPU: 48 KiB.
#define DSL_CUDA_MAX_DYNAMIC_SHARED 49152

DSL_RUNTIME_EXPORT int dsl_runtime_cuda_launch(const char *ptx, uint64_t ptx_bytes,
                                               const char *kernel_name, int32_t blocks_x,
                                               int32_t blocks_y, int32_t blocks_z,
                                               int32_t threads_x, int32_t threads_y,
                                               int32_t threads_z, int32_t count, void *const *args,
                                               const uint64_t *sizes, const uint8_t *kinds) {
    int32_t blocks[3] = {blocks_x, blocks_y, blocks_z};
    int32_t threads[3] = {threads_x, threads_y, threads_z};
    if (count > DSL_CUDA_MAX_ARGS)
        return dsl_runtime_report(dsl_error_device_error,
                                  "Error: CUDA kernel %s takes %d arguments; at most %d are "
                                  "supported. Split the kernel's Func into smaller stages.",
                                  kernel_name, (int)count, DSL_CUDA_MAX_ARGS);
    if (!ready()) return dsl_error_device_error;
    int empty;
    int status = dsl_runtime_gpu_prepare_launch(blocks, threads, count, args, kinds,
                                                &dsl_cuda_device_interface, &empty);
    if (status || empty) return status;
    pthread_mutex_lock(&lock);
    CUfunction function = find_function(ptx, ptx_bytes, kernel_name);
    pthread_mutex_unlock(&lock);
    if (!function) return dsl_error_device_error;
    // cuLaunchKernel reads each parameter through a pointer: buffers as device pointers.
    // Shared memory sized at the launch is no parameter: its bytes add up to the
    // launch's dynamic shared memory, in which the kernel finds each in turn.
    CUdeviceptr pointers[DSL_CUDA_MAX_ARGS];
    void *params[DSL_CUDA_MAX_ARGS];
    uint64_t shared = 0;
    int32_t n = 0;
    for (int32_t i = 0; i < count; i++) {
        if (kinds[i] & dsl_kernel_arg_buffer) {
            pointers[n] = (CUdeviceptr)((dsl_buffer_t *)args[i])->device;
            params[n] = &pointers[n];
            n++;
        } else if (kinds[i] == dsl_kernel_arg_shared) {
            shared += sizes[i];
        } else {
            params[n++] = args[i];
        }
    }
    if (shared > DSL_CUDA_MAX_DYNAMIC_SHARED)
        return dsl_runtime_report(dsl_error_device_error,
                                  "Error: CUDA kernel %s needs %llu bytes of shared memory sized "
                                  "at the launch; at most %d are supported. Use smaller tiles "
                                  "for the producers computed per block.",
                                  kernel_name, (unsigned long long)shared,
                                  DSL_CUDA_MAX_DYNAMIC_SHARED);
    CUresult err = api.LaunchKernel(function, (unsigned)blocks_x, (unsigned)blocks_y,
                                    (unsigned)blocks_z, (unsigned)threads_x, (unsigned)threads_y,
                                    (unsigned)threads_z, (unsigned)shared, NULL, params, NULL);
    const char *sync = getenv("DSL_GPU_SYNC");
    if (err == CUDA_SUCCESS && sync && *sync && *sync != '0') err = api.CtxSynchronize();
    if (err == CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES)
        return dsl_runtime_report(
            dsl_error_device_error,
            "Error: the CUDA device cannot run blocks of %d x %d x %d threads of kernel %s "
            "(out of registers or threads per block); schedule fewer threads per block "
            "(smaller gpu_tile sizes).",
            (int)threads_x, (int)threads_y, (int)threads_z, kernel_name);
    if (err != CUDA_SUCCESS)
        return dsl_runtime_report(dsl_error_device_error,
                                  "Error: running the CUDA kernel %s failed (%d).", kernel_name,
                                  (int)err);
    dsl_runtime_gpu_mark_written(count, args, kinds);
    return 0;
}
