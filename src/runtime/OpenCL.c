// The OpenCL device interface. The driver is loaded with dlopen (libOpenCL.so.1, the ICD loader;
// DSL_LIBOPENCL names another file), so that neither the compiler nor a generated library
// links against OpenCL: a machine without it fails only when a kernel is launched, with a
// message that says so. One context and one in-order queue on the first platform's first
// device (DSL_OPENCL_DEVICE=N picks device N of all platforms' devices) serve the process;
// each program is built once and kept with its kernels.
#define _GNU_SOURCE
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dsl/runtime/dsl_runtime.h"
#include "runtime/Runtime.h"

// The part of the OpenCL 1.2 API used here, declared from the specification so that the
// runtime builds without OpenCL headers.
typedef int32_t cl_int;
typedef uint32_t cl_uint;
typedef uint64_t cl_ulong;
typedef cl_ulong cl_bitfield;
typedef void *cl_platform_id;
typedef void *cl_device_id;
typedef void *cl_context;
typedef void *cl_command_queue;
typedef void *cl_mem;
typedef void *cl_program;
typedef void *cl_kernel;
typedef void *cl_event;
typedef intptr_t cl_context_properties;

enum {
    CL_SUCCESS = 0,
    CL_TRUE = 1,
    CL_BUILD_PROGRAM_FAILURE = -11,
    CL_INVALID_WORK_GROUP_SIZE = -54,
    CL_PLATFORM_NAME = 0x0902,
    CL_DEVICE_NAME = 0x102B,
    CL_PROGRAM_BUILD_LOG = 0x1183,
    CL_CONTEXT_PLATFORM = 0x1084,
};
#define CL_DEVICE_TYPE_ALL ((cl_bitfield)0xFFFFFFFF)
#define CL_MEM_READ_WRITE ((cl_bitfield)1)

typedef struct Api {
    cl_int (*GetPlatformIDs)(cl_uint, cl_platform_id *, cl_uint *);
    cl_int (*GetDeviceIDs)(cl_platform_id, cl_bitfield, cl_uint, cl_device_id *, cl_uint *);
    cl_int (*GetDeviceInfo)(cl_device_id, cl_uint, size_t, void *, size_t *);
    cl_context (*CreateContext)(const cl_context_properties *, cl_uint, const cl_device_id *,
                                void *, void *, cl_int *);
    cl_command_queue (*CreateCommandQueue)(cl_context, cl_device_id, cl_bitfield, cl_int *);
    cl_mem (*CreateBuffer)(cl_context, cl_bitfield, size_t, void *, cl_int *);
    cl_int (*ReleaseMemObject)(cl_mem);
    cl_int (*EnqueueReadBuffer)(cl_command_queue, cl_mem, cl_uint, size_t, size_t, void *, cl_uint,
                                const cl_event *, cl_event *);
    cl_int (*EnqueueWriteBuffer)(cl_command_queue, cl_mem, cl_uint, size_t, size_t, const void *,
                                 cl_uint, const cl_event *, cl_event *);
    cl_program (*CreateProgramWithSource)(cl_context, cl_uint, const char **, const size_t *,
                                          cl_int *);
    cl_int (*BuildProgram)(cl_program, cl_uint, const cl_device_id *, const char *, void *, void *);
    cl_int (*GetProgramBuildInfo)(cl_program, cl_device_id, cl_uint, size_t, void *, size_t *);
    cl_kernel (*CreateKernel)(cl_program, const char *, cl_int *);
    cl_int (*SetKernelArg)(cl_kernel, cl_uint, size_t, const void *);
    cl_int (*EnqueueNDRangeKernel)(cl_command_queue, cl_kernel, cl_uint, const size_t *,
                                   const size_t *, const size_t *, cl_uint, const cl_event *,
                                   cl_event *);
    cl_int (*Finish)(cl_command_queue);
} Api;

typedef struct Kernel {
    char *name;
    cl_kernel kernel;
    struct Kernel *next;
} Kernel;

typedef struct Program {
    char *source;
    uint64_t bytes;
    cl_program program;
    Kernel *kernels;
    struct Program *next;
} Program;

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static int initialized;  // 1 ready, -1 failed (the message is kept)
static char init_failure[512];
static Api api;
static cl_device_id device;
static cl_context context;
static cl_command_queue queue;
static Program *programs;

static int load_api(void) {
    const char *path = getenv("DSL_LIBOPENCL");
    if (!path || !*path) path = "libOpenCL.so.1";
    void *lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
        snprintf(init_failure, sizeof(init_failure),
                 "no OpenCL driver found (%s could not be loaded): OpenCL pipelines compile here "
                 "but cannot run. Install an OpenCL driver (on Debian: ocl-icd-libopencl1 and "
                 "pocl-opencl-icd), or set DSL_LIBOPENCL to the library's path.",
                 path);
        return 0;
    }
#define DSL_CL_SYMBOL(field)                                  \
    do {                                                      \
        *(void **)&api.field = dlsym(lib, "cl" #field);       \
        if (!api.field) {                                     \
            snprintf(init_failure, sizeof(init_failure),      \
                     "the OpenCL library %s has no cl" #field \
                     "; it is not an OpenCL 1.2 "             \
                     "driver.",                               \
                     path);                                   \
            return 0;                                         \
        }                                                     \
    } while (0)
    DSL_CL_SYMBOL(GetPlatformIDs);
    DSL_CL_SYMBOL(GetDeviceIDs);
    DSL_CL_SYMBOL(GetDeviceInfo);
    DSL_CL_SYMBOL(CreateContext);
    DSL_CL_SYMBOL(CreateCommandQueue);
    DSL_CL_SYMBOL(CreateBuffer);
    DSL_CL_SYMBOL(ReleaseMemObject);
    DSL_CL_SYMBOL(EnqueueReadBuffer);
    DSL_CL_SYMBOL(EnqueueWriteBuffer);
    DSL_CL_SYMBOL(CreateProgramWithSource);
    DSL_CL_SYMBOL(BuildProgram);
    DSL_CL_SYMBOL(GetProgramBuildInfo);
    DSL_CL_SYMBOL(CreateKernel);
    DSL_CL_SYMBOL(SetKernelArg);
    DSL_CL_SYMBOL(EnqueueNDRangeKernel);
    DSL_CL_SYMBOL(Finish);
#undef DSL_CL_SYMBOL
    return 1;
}

/// Picks the device and makes the context and queue. Called with the lock held.
static int initialize(void) {
    if (initialized) return initialized > 0;
    initialized = -1;
    if (!load_api()) return 0;
    cl_platform_id platforms[16];
    cl_uint platform_count = 0;
    cl_int err = api.GetPlatformIDs(16, platforms, &platform_count);
    if (err != CL_SUCCESS || platform_count == 0) {
        snprintf(init_failure, sizeof(init_failure),
                 "the OpenCL driver has no platform (clGetPlatformIDs: %d): OpenCL pipelines "
                 "compile here but cannot run. Install an OpenCL implementation (on Debian: "
                 "pocl-opencl-icd).",
                 (int)err);
        return 0;
    }
    const char *wanted_text = getenv("DSL_OPENCL_DEVICE");
    int wanted = wanted_text ? atoi(wanted_text) : 0;
    int seen = 0;
    cl_platform_id platform = NULL;
    for (cl_uint p = 0; p < platform_count && !platform; p++) {
        cl_device_id devices[16];
        cl_uint device_count = 0;
        if (api.GetDeviceIDs(platforms[p], CL_DEVICE_TYPE_ALL, 16, devices, &device_count) !=
            CL_SUCCESS)
            continue;
        for (cl_uint d = 0; d < device_count; d++, seen++) {
            if (seen == wanted) {
                platform = platforms[p];
                device = devices[d];
                break;
            }
        }
    }
    if (!platform) {
        snprintf(init_failure, sizeof(init_failure),
                 "OpenCL device %d does not exist (%d devices found): OpenCL pipelines compile "
                 "here but cannot run.%s",
                 wanted, seen, wanted_text ? " Check DSL_OPENCL_DEVICE." : "");
        return 0;
    }
    cl_context_properties properties[] = {CL_CONTEXT_PLATFORM, (cl_context_properties)platform, 0};
    context = api.CreateContext(properties, 1, &device, NULL, NULL, &err);
    if (err != CL_SUCCESS) {
        snprintf(init_failure, sizeof(init_failure), "clCreateContext failed (%d).", (int)err);
        return 0;
    }
    queue = api.CreateCommandQueue(context, device, 0, &err);
    if (err != CL_SUCCESS) {
        snprintf(init_failure, sizeof(init_failure), "clCreateCommandQueue failed (%d).", (int)err);
        return 0;
    }
    initialized = 1;
    return 1;
}

static int ready(void) {
    if (initialize()) return 1;
    dsl_runtime_report(dsl_error_device_error, "Error: %s", init_failure);
    return 0;
}

static int opencl_malloc(dsl_buffer_t *b, uint64_t bytes) {
    pthread_mutex_lock(&lock);
    int ok = ready();
    cl_int err = CL_SUCCESS;
    cl_mem mem = NULL;
    if (ok) mem = api.CreateBuffer(context, CL_MEM_READ_WRITE, bytes ? bytes : 1, NULL, &err);
    pthread_mutex_unlock(&lock);
    if (!ok) return dsl_error_device_error;
    if (err != CL_SUCCESS)
        return dsl_runtime_report(
            dsl_error_out_of_memory,
            "Error: OpenCL could not allocate %llu bytes of device memory (clCreateBuffer: %d).",
            (unsigned long long)bytes, (int)err);
    b->device = (uint64_t)(uintptr_t)mem;
    return 0;
}

static int opencl_free(dsl_buffer_t *b) {
    cl_int err = api.ReleaseMemObject((cl_mem)(uintptr_t)b->device);
    if (err != CL_SUCCESS)
        return dsl_runtime_report(dsl_error_device_error, "Error: clReleaseMemObject failed (%d).",
                                  (int)err);
    return 0;
}

static int opencl_copy_to_host(dsl_buffer_t *b, uint64_t bytes) {
    pthread_mutex_lock(&lock);
    cl_int err = api.EnqueueReadBuffer(queue, (cl_mem)(uintptr_t)b->device, CL_TRUE, 0, bytes,
                                       b->host, 0, NULL, NULL);
    pthread_mutex_unlock(&lock);
    if (err != CL_SUCCESS)
        return dsl_runtime_report(
            dsl_error_device_error,
            "Error: copying %llu bytes from the OpenCL device failed (clEnqueueReadBuffer: %d).",
            (unsigned long long)bytes, (int)err);
    return 0;
}

static int opencl_copy_to_device(dsl_buffer_t *b, uint64_t bytes) {
    pthread_mutex_lock(&lock);
    cl_int err = api.EnqueueWriteBuffer(queue, (cl_mem)(uintptr_t)b->device, CL_TRUE, 0, bytes,
                                        b->host, 0, NULL, NULL);
    pthread_mutex_unlock(&lock);
    if (err != CL_SUCCESS)
        return dsl_runtime_report(
            dsl_error_device_error,
            "Error: copying %llu bytes to the OpenCL device failed (clEnqueueWriteBuffer: %d).",
            (unsigned long long)bytes, (int)err);
    return 0;
}

static int opencl_sync(void) {
    pthread_mutex_lock(&lock);
    cl_int err = initialized > 0 ? api.Finish(queue) : CL_SUCCESS;
    pthread_mutex_unlock(&lock);
    if (err != CL_SUCCESS)
        return dsl_runtime_report(dsl_error_device_error, "Error: clFinish failed (%d).", (int)err);
    return 0;
}

DSL_RUNTIME_EXPORT const dsl_device_interface_t dsl_opencl_device_interface = {
    "OpenCL", opencl_malloc, opencl_free, opencl_copy_to_host, opencl_copy_to_device, opencl_sync};

/// The kernel `name` of the program of `source`, built on first use. Called with the lock held;
/// reports and returns NULL on failure.
static cl_kernel find_kernel(const char *source, uint64_t bytes, const char *name) {
    Program *p = programs;
    while (p && !(p->bytes == bytes && memcmp(p->source, source, bytes) == 0))
        p = p->next;
    if (!p) {
        cl_int err;
        size_t length = bytes;
        cl_program program = api.CreateProgramWithSource(context, 1, &source, &length, &err);
        if (err != CL_SUCCESS) {
            dsl_runtime_report(dsl_error_device_error,
                               "Error: clCreateProgramWithSource failed (%d).", (int)err);
            return NULL;
        }
        err = api.BuildProgram(program, 1, &device, "-cl-fp32-correctly-rounded-divide-sqrt", NULL,
                               NULL);
        if (err != CL_SUCCESS) {
            char log[768] = "";
            api.GetProgramBuildInfo(program, device, CL_PROGRAM_BUILD_LOG, sizeof(log) - 1, log,
                                    NULL);
            dsl_runtime_report(dsl_error_device_error,
                               "Error: the OpenCL driver could not build the generated kernels "
                               "(clBuildProgram: %d); "
                               "this is a bug in dsl's OpenCL code generator. Build log: %s",
                               (int)err, log);
            return NULL;
        }
        p = (Program *)calloc(1, sizeof(Program));
        p->source = (char *)malloc(bytes);
        memcpy(p->source, source, bytes);
        p->bytes = bytes;
        p->program = program;
        p->next = programs;
        programs = p;
    }
    Kernel *k = p->kernels;
    while (k && strcmp(k->name, name) != 0)
        k = k->next;
    if (!k) {
        cl_int err;
        cl_kernel kernel = api.CreateKernel(p->program, name, &err);
        if (err != CL_SUCCESS) {
            dsl_runtime_report(dsl_error_device_error, "Error: clCreateKernel(%s) failed (%d).",
                               name, (int)err);
            return NULL;
        }
        k = (Kernel *)calloc(1, sizeof(Kernel));
        k->name = strdup(name);
        k->kernel = kernel;
        k->next = p->kernels;
        p->kernels = k;
    }
    return k->kernel;
}

DSL_RUNTIME_EXPORT int dsl_runtime_opencl_launch(
    const char *source, uint64_t source_bytes, const char *kernel_name, int32_t blocks_x,
    int32_t blocks_y, int32_t blocks_z, int32_t threads_x, int32_t threads_y, int32_t threads_z,
    int32_t count, void *const *args, const uint64_t *sizes, const uint8_t *kinds) {
    int32_t blocks[3] = {blocks_x, blocks_y, blocks_z};
    int32_t threads[3] = {threads_x, threads_y, threads_z};
    pthread_mutex_lock(&lock);
    int ok = ready();
    pthread_mutex_unlock(&lock);
    if (!ok) return dsl_error_device_error;
    // Buffers first (outside the lock: copies take it).
    int empty;
    int status = dsl_runtime_gpu_prepare_launch(blocks, threads, count, args, kinds,
                                                &dsl_opencl_device_interface, &empty);
    if (status || empty) return status;
    pthread_mutex_lock(&lock);
    cl_kernel kernel = find_kernel(source, source_bytes, kernel_name);
    if (!kernel) {
        pthread_mutex_unlock(&lock);
        return dsl_error_device_error;
    }
    cl_int err = CL_SUCCESS;
    uint64_t local_bytes = 0;
    for (int32_t i = 0; i < count && err == CL_SUCCESS; i++) {
        if (kinds[i] & dsl_kernel_arg_buffer) {
            cl_mem mem = (cl_mem)(uintptr_t)((dsl_buffer_t *)args[i])->device;
            err = api.SetKernelArg(kernel, (cl_uint)i, sizeof(cl_mem), &mem);
        } else if (kinds[i] == dsl_kernel_arg_shared) {
            // Shared memory sized at the launch: a __local argument of that many bytes.
            err = api.SetKernelArg(kernel, (cl_uint)i, (size_t)sizes[i], NULL);
            local_bytes += sizes[i];
        } else {
            err = api.SetKernelArg(kernel, (cl_uint)i, (size_t)sizes[i], args[i]);
        }
        if (err != CL_SUCCESS) {
            pthread_mutex_unlock(&lock);
            return dsl_runtime_report(dsl_error_device_error,
                                      "Error: clSetKernelArg(%s, %d) failed (%d).", kernel_name,
                                      (int)i, (int)err);
        }
    }
    size_t global[3], local[3];
    for (int d = 0; d < 3; d++) {
        global[d] = (size_t)blocks[d] * (size_t)threads[d];
        local[d] = (size_t)threads[d];
    }
    err = api.EnqueueNDRangeKernel(queue, kernel, 3, NULL, global, local, 0, NULL, NULL);
    const char *sync = getenv("DSL_GPU_SYNC");
    if (err == CL_SUCCESS && sync && *sync && *sync != '0') err = api.Finish(queue);
    pthread_mutex_unlock(&lock);
    if (err == CL_INVALID_WORK_GROUP_SIZE)
        return dsl_runtime_report(
            dsl_error_device_error,
            "Error: the OpenCL device refuses blocks of %d x %d x %d threads for kernel %s "
            "(CL_INVALID_WORK_GROUP_SIZE); schedule fewer threads per block (smaller "
            "gpu_tile sizes).",
            (int)threads[0], (int)threads[1], (int)threads[2], kernel_name);
    if (err != CL_SUCCESS && local_bytes)
        return dsl_runtime_report(dsl_error_device_error,
                                  "Error: launching the OpenCL kernel %s with %llu bytes of shared "
                                  "memory sized at the launch failed (%d); the device may have "
                                  "less. Use smaller tiles for the producers computed per block.",
                                  kernel_name, (unsigned long long)local_bytes, (int)err);
    if (err != CL_SUCCESS)
        return dsl_runtime_report(dsl_error_device_error,
                                  "Error: launching the OpenCL kernel %s failed (%d).", kernel_name,
                                  (int)err);
    dsl_runtime_gpu_mark_written(count, args, kinds);
    return 0;
}
