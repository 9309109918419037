// A stand-in for the CUDA driver (libcuda.so.1) that runs no kernels: device memory is host
// memory, modules are kept as text, and every call is recorded, so that the GPU tests can check
// on any machine what the CUDA runtime (src/runtime/CUDA.c) asks of the driver: which modules it
// loads and how often, the grid of each launch, the parameters it passes (read with the sizes
// the PTX entry declares), and which copies it makes. Loaded by the runtime through DSL_LIBCUDA;
// the test reads the record with fake_cuda_record().
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fake_cuda.h"

static FakeCudaRecord record;

typedef struct Allocation {
    unsigned long long address;
    size_t bytes;
    struct Allocation *next;
} Allocation;
static Allocation *allocations;

typedef struct Function {
    char name[128];
    int param_count;
    int param_bytes[FAKE_CUDA_MAX_PARAMS];
} Function;

FakeCudaRecord *fake_cuda_record(void) {
    return &record;
}

int cuInit(unsigned flags) {
    (void)flags;
    record.inits++;
    return 0;
}
int cuDeviceGetCount(int *count) {
    *count = 1;
    return 0;
}
int cuDeviceGet(int *device, int ordinal) {
    *device = ordinal;
    return ordinal == 0 ? 0 : 101;  // CUDA_ERROR_INVALID_DEVICE
}
int cuDeviceGetName(char *name, int length, int device) {
    (void)device;
    snprintf(name, (size_t)length, "%s", "fake GPU");
    return 0;
}
int cuDeviceGetAttribute(int *value, int attribute, int device) {
    (void)device;
    *value = attribute == 75 ? 8 : 0;  // compute capability 8.0
    return 0;
}
int cuDevicePrimaryCtxRetain(void **context, int device) {
    (void)device;
    *context = &record;
    return 0;
}
int cuCtxSetCurrent(void *context) {
    return context == &record ? 0 : 201;  // CUDA_ERROR_INVALID_CONTEXT
}
int cuCtxSynchronize(void) {
    record.synchronizes++;
    return 0;
}

/// Whether the log of `ptxas -v` reports a kernel that spills registers to local memory
/// ("N bytes spill stores" with N > 0); the log then says so on its last line.
static int spills(const char *log_path) {
    FILE *l = fopen(log_path, "r");
    if (!l) return 0;
    char line[512];
    int found = 0;
    while (fgets(line, sizeof(line), l)) {
        const char *at = strstr(line, " bytes spill stores");
        if (!at) continue;
        const char *number = at;
        while (number > line && number[-1] >= '0' && number[-1] <= '9')
            number--;
        if (atoi(number) > 0) found = 1;
    }
    fclose(l);
    if (found) {
        l = fopen(log_path, "a");
        if (l) {
            fputs("fake_cuda: a kernel spills registers to local memory (FAKE_CUDA_NO_SPILLS)\n",
                  l);
            fclose(l);
        }
    }
    return found;
}

/// Whether `ptxas` assembles `ptx` for sm_80 and for sm_90; if not, its messages go to the
/// error log buffer among `options` (as the driver's own assembler would put them).
static int assembles(const char *ptxas, const char *ptx, unsigned count, const int *options,
                     void **values) {
    char dir[] = "/tmp/fake_cuda_XXXXXX";
    if (!mkdtemp(dir)) return 0;
    char path[128], command[1024], log_path[128];
    snprintf(path, sizeof(path), "%s/module.ptx", dir);
    snprintf(log_path, sizeof(log_path), "%s/log", dir);
    FILE *f = fopen(path, "w");
    if (!f) return 0;
    fputs(ptx, f);
    fclose(f);
    int ok = 1;
    const char *no_spills = getenv("FAKE_CUDA_NO_SPILLS");
    for (int arch = 80; arch <= 90 && ok; arch += 10) {
        snprintf(command, sizeof(command),
                 "'%s' -v -arch=sm_%d '%s' -o '%s/module.cubin' > '%s' 2>&1", ptxas, arch, path,
                 dir, log_path);
        ok = system(command) == 0;
        if (ok && no_spills && *no_spills == '1') ok = !spills(log_path);
    }
    if (!ok) {
        char *log = NULL;
        size_t log_bytes = 0;
        for (unsigned i = 0; i + 1 < count; i++) {
            if (options[i] == 5 && options[i + 1] == 6) {  // error log buffer, its size
                log = (char *)values[i];
                log_bytes = (size_t)(uintptr_t)values[i + 1];
            }
        }
        FILE *l = fopen(log_path, "r");
        if (l && log && log_bytes) log[fread(log, 1, log_bytes - 1, l)] = 0;
        if (l) fclose(l);
    }
    snprintf(command, sizeof(command), "rm -rf '%s'", dir);
    if (system(command) != 0) ok = 0;
    return ok;
}

int cuModuleLoadDataEx(void **module, const void *image, unsigned count, int *options,
                       void **values) {
    const char *ptx = (const char *)image;
    if (!strstr(ptx, ".version") || !strstr(ptx, ".entry")) return 218;  // INVALID_PTX
    const char *ptxas = getenv("FAKE_CUDA_PTXAS");
    if (ptxas && *ptxas && !assembles(ptxas, ptx, count, options, values)) return 218;
    record.module_loads++;
    *module = strdup(ptx);
    return 0;
}

/// The size of a PTX parameter type (".u64", ".b32", ...).
static int param_size(const char *type) {
    int bits = atoi(type + 2);
    return bits > 0 ? bits / 8 : 0;
}

int cuModuleGetFunction(void **function, void *module, const char *name) {
    // The entry's parameters: "(\n\t.param .u64 .ptr ... name_param_0,\n\t.param .u32 ...)".
    char header[160];
    snprintf(header, sizeof(header), ".entry %s(", name);
    const char *entry = strstr((const char *)module, header);
    if (!entry) return 500;  // CUDA_ERROR_NOT_FOUND
    Function *f = (Function *)calloc(1, sizeof(Function));
    snprintf(f->name, sizeof(f->name), "%s", name);
    const char *end = strchr(entry, ')');
    for (const char *p = strstr(entry, ".param "); p && p < end; p = strstr(p + 1, ".param ")) {
        if (f->param_count == FAKE_CUDA_MAX_PARAMS) return 1;
        f->param_bytes[f->param_count++] = param_size(p + 7);
    }
    record.function_lookups++;
    *function = f;
    return 0;
}

int cuMemAlloc_v2(unsigned long long *address, size_t bytes) {
    void *p = malloc(bytes);
    if (!p) return 2;  // CUDA_ERROR_OUT_OF_MEMORY
    memset(p, FAKE_CUDA_FILL, bytes);
    Allocation *a = (Allocation *)calloc(1, sizeof(Allocation));
    a->address = (unsigned long long)(uintptr_t)p;
    a->bytes = bytes;
    a->next = allocations;
    allocations = a;
    *address = a->address;
    record.allocations++;
    record.live_allocations++;
    return 0;
}

int cuMemFree_v2(unsigned long long address) {
    for (Allocation **a = &allocations; *a; a = &(*a)->next) {
        if ((*a)->address == address) {
            Allocation *dead = *a;
            *a = dead->next;
            free((void *)(uintptr_t)dead->address);
            free(dead);
            record.live_allocations--;
            return 0;
        }
    }
    return 1;  // CUDA_ERROR_INVALID_VALUE
}

static const Allocation *allocation_of(unsigned long long address) {
    for (const Allocation *a = allocations; a; a = a->next)
        if (a->address == address) return a;
    return NULL;
}

int cuMemcpyHtoD_v2(unsigned long long dst, const void *src, size_t bytes) {
    const Allocation *a = allocation_of(dst);
    if (!a || bytes > a->bytes) return 1;
    memcpy((void *)(uintptr_t)dst, src, bytes);
    record.copies_to_device++;
    return 0;
}

int cuMemcpyDtoH_v2(void *dst, unsigned long long src, size_t bytes) {
    const Allocation *a = allocation_of(src);
    if (!a || bytes > a->bytes) return 1;
    memcpy(dst, (const void *)(uintptr_t)src, bytes);
    record.copies_to_host++;
    return 0;
}

int cuLaunchKernel(void *function, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by,
                   unsigned bz, unsigned shared, void *stream, void **params, void **extra) {
    (void)stream;
    (void)extra;
    const Function *f = (const Function *)function;
    /* The last FAKE_CUDA_MAX_LAUNCHES launches are kept, launch n at n % FAKE_CUDA_MAX_LAUNCHES
       (a benchmark on this driver launches without end). */
    FakeCudaLaunch *l = &record.launches[record.launch_count++ % FAKE_CUDA_MAX_LAUNCHES];
    snprintf(l->kernel, sizeof(l->kernel), "%s", f->name);
    l->grid[0] = gx;
    l->grid[1] = gy;
    l->grid[2] = gz;
    l->block[0] = bx;
    l->block[1] = by;
    l->block[2] = bz;
    l->shared_bytes = shared;
    l->param_count = f->param_count;
    for (int i = 0; i < f->param_count; i++) {
        uint64_t value = 0;
        memcpy(&value, params[i], (size_t)f->param_bytes[i]);
        l->params[i] = value;
        l->param_bytes[i] = f->param_bytes[i];
        const Allocation *memory = f->param_bytes[i] == 8 ? allocation_of(value) : NULL;
        l->param_is_device_memory[i] = memory != NULL;
        if (memory)
            memcpy(l->device_words[i], (const void *)(uintptr_t)value,
                   memory->bytes < 16 ? memory->bytes : 16);
    }
    return 0;
}
