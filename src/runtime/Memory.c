// Heap memory for generated code: buffers that a pipeline allocates (compute_root storage,
// scratch that does not fit on the stack).
//
// Large blocks (1 MiB or more) that generated code frees are kept, up to a limit, for its next
// allocations. A pipeline realized again and again (frames of a video, batches of a server)
// allocates the same large intermediates every time; malloc serves those from fresh mappings,
// and the kernel's work of mapping and zeroing every page again cost local_laplacian a fifth of
// its run time. A kept block is already mapped.
#define _GNU_SOURCE
#include <malloc.h>
#include <pthread.h>
#include <stdlib.h>

#include "dsl/runtime/dsl_runtime.h"
#include "runtime/Runtime.h"

enum {
    kAlignment = 64,
    kSlots = 32,  // blocks kept at most
};
#define DSL_KEEP_FROM ((uint64_t)1 << 20)
#define DSL_DEFAULT_LIMIT ((uint64_t)256 << 20)

typedef struct Kept {
    void *block;
    uint64_t bytes;  // usable
} Kept;

static pthread_mutex_t cache_lock = PTHREAD_MUTEX_INITIALIZER;
static Kept kept[kSlots];  // oldest first
static int kept_count;
static uint64_t kept_bytes;
static uint64_t limit;
static int limit_known;

/// The limit in bytes: dsl_set_memory_cache_limit's, else DSL_MEMORY_CACHE_MB's, else the
/// default. Called with the lock held.
static uint64_t cache_limit(void) {
    if (!limit_known) {
        limit = DSL_DEFAULT_LIMIT;
        const char *env = getenv("DSL_MEMORY_CACHE_MB");
        if (env && *env) {
            char *end = NULL;
            unsigned long long mb = strtoull(env, &end, 10);
            if (end && *end == '\0' && mb < ((uint64_t)1 << 43)) limit = (uint64_t)mb << 20;
        }
        limit_known = 1;
    }
    return limit;
}

/// Forgets `count` kept blocks from index `first` on (the caller frees or hands them out).
/// Called with the lock held.
static void forget(int first, int count) {
    for (int i = first; i < first + count; i++)
        kept_bytes -= kept[i].bytes;
    for (int i = first + count; i < kept_count; i++)
        kept[i - count] = kept[i];
    kept_count -= count;
}

/// Frees the oldest kept blocks until at most `bytes` are kept in at most `slots` blocks.
/// Called with the lock held.
static void shrink_to(uint64_t bytes, int slots) {
    while (kept_count > 0 && (kept_bytes > bytes || kept_count > slots)) {
        free(kept[0].block);
        forget(0, 1);
    }
}

/// A block from a hook's malloc: exactly the bytes asked for, as Halide's custom_malloc gets
/// them. Generated code assumes no more alignment than an element's; the hook's own alignment
/// (64 bytes, a cache line, is the fastest) is the block's.
static void *hooked_malloc(const dsl_runtime_hooks_t *hooks, uint64_t bytes) {
    if (bytes != (uint64_t)(size_t)bytes) return NULL;
    return hooks->malloc(hooks->context, bytes);
}

DSL_RUNTIME_EXPORT void *dsl_runtime_malloc(uint64_t bytes) {
    const dsl_runtime_hooks_t *hooks = dsl_runtime_current_hooks();
    if (hooks && hooks->malloc) return hooked_malloc(hooks, bytes);
    // aligned_alloc needs a size that is a multiple of the alignment.
    uint64_t rounded = (bytes + kAlignment - 1) & ~(uint64_t)(kAlignment - 1);
    if (rounded == 0) rounded = kAlignment;
    if (rounded < bytes) return NULL;  // the rounding wrapped around
    if (rounded >= DSL_KEEP_FROM) {
        // The smallest kept block that holds `rounded` bytes and wastes at most half of itself.
        pthread_mutex_lock(&cache_lock);
        int best = -1;
        for (int i = 0; i < kept_count; i++) {
            if (kept[i].bytes >= rounded && kept[i].bytes / 2 <= rounded &&
                (best < 0 || kept[i].bytes < kept[best].bytes))
                best = i;
        }
        if (best >= 0) {
            void *block = kept[best].block;
            forget(best, 1);
            pthread_mutex_unlock(&cache_lock);
            return block;
        }
        pthread_mutex_unlock(&cache_lock);
    }
    return aligned_alloc(kAlignment, rounded);
}

DSL_RUNTIME_EXPORT void dsl_runtime_free(void *pointer) {
    if (!pointer) return;
    const dsl_runtime_hooks_t *hooks = dsl_runtime_current_hooks();
    if (hooks && hooks->malloc) {
        // Allocated by hooked_malloc, under the same hooks (a pipeline frees what it allocates
        // before it returns).
        if (hooks->free) {
            hooks->free(hooks->context, pointer);
        } else {
            free(pointer);
        }
        return;
    }
    const uint64_t usable = malloc_usable_size(pointer);
    if (usable >= DSL_KEEP_FROM) {
        pthread_mutex_lock(&cache_lock);
        const uint64_t most = cache_limit();
        if (usable <= most) {
            shrink_to(most - usable, kSlots - 1);
            kept[kept_count].block = pointer;
            kept[kept_count].bytes = usable;
            kept_count++;
            kept_bytes += usable;
            pthread_mutex_unlock(&cache_lock);
            return;
        }
        pthread_mutex_unlock(&cache_lock);
    }
    free(pointer);
}

DSL_RUNTIME_EXPORT void dsl_set_memory_cache_limit(uint64_t bytes) {
    pthread_mutex_lock(&cache_lock);
    limit = bytes;
    limit_known = 1;
    shrink_to(bytes, kSlots);
    pthread_mutex_unlock(&cache_lock);
}

DSL_RUNTIME_EXPORT uint64_t dsl_memory_cache_bytes(void) {
    pthread_mutex_lock(&cache_lock);
    const uint64_t bytes = kept_bytes;
    pthread_mutex_unlock(&cache_lock);
    return bytes;
}

DSL_RUNTIME_EXPORT void dsl_release_cached_memory(void) {
    pthread_mutex_lock(&cache_lock);
    shrink_to(0, 0);
    pthread_mutex_unlock(&cache_lock);
}
