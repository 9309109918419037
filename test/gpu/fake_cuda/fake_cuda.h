#pragma once
/* What the stand-in CUDA driver (fake_cuda.c) records, read by the GPU tests. */

#include <stdint.h>
#include <stdio.h>

#define FAKE_CUDA_MAX_PARAMS 64
#define FAKE_CUDA_MAX_LAUNCHES 64
/* Every byte of fresh device memory. */
#define FAKE_CUDA_FILL 0x5A

typedef struct FakeCudaLaunch {
    char kernel[128];
    unsigned grid[3], block[3];
    /* The launch's dynamic shared memory, in bytes. */
    unsigned shared_bytes;
    int param_count;
    uint64_t params[FAKE_CUDA_MAX_PARAMS];
    int param_bytes[FAKE_CUDA_MAX_PARAMS];
    int param_is_device_memory[FAKE_CUDA_MAX_PARAMS];
    /* The first 16 bytes of device memory a parameter points to, at the launch. */
    uint32_t device_words[FAKE_CUDA_MAX_PARAMS][4];
} FakeCudaLaunch;

typedef struct FakeCudaRecord {
    int inits, module_loads, function_lookups, synchronizes;
    int allocations, live_allocations, copies_to_device, copies_to_host;
    int launch_count;
    /* Launch n is at n % FAKE_CUDA_MAX_LAUNCHES: the last ones are kept. */
    FakeCudaLaunch launches[FAKE_CUDA_MAX_LAUNCHES];
} FakeCudaRecord;

#ifdef __cplusplus
extern "C" {
#endif
FakeCudaRecord *fake_cuda_record(void);
#ifdef __cplusplus
}
#endif
