// The cache of memoized Funcs (Func::memoize): a Func's realization is kept across runs of a
// pipeline, keyed by what its values depend on (lowering/Memoization.cpp builds the key: the
// Func's definition, the region realized, the values of the parameters it reads and those of
// memoize_tag), and copied into the realization's memory when the same key comes again.
//
// Entries live in one list, most recently used first, under a lock (a Func computed per row of
// a parallel loop looks up and stores from several threads). Their bytes are capped: storing
// past the cap drops the least recently used entries; an entry larger than the cap is not kept.
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "dsl/runtime/dsl_runtime.h"
#include "runtime/Runtime.h"

#define DSL_MEMOIZATION_DEFAULT_SIZE ((int64_t)1 << 20)

typedef struct Entry {
    struct Entry *next, *prev;
    char *func;     // the Func's definition id
    uint64_t *key;  // key_words words
    int32_t key_words;
    int32_t buffer_count;  // one per value of a Tuple
    int32_t dimensions;
    dsl_type_t *types;  // buffer_count
    int32_t *shape;     // min, extent per dimension
    uint8_t **data;     // buffer_count dense blocks, dimension 0 innermost
    int64_t bytes;      // of the blocks
    int has_eviction_key;
    uint64_t eviction_key;
} Entry;

static pthread_mutex_t memo_lock = PTHREAD_MUTEX_INITIALIZER;
static Entry *newest, *oldest;
static int64_t memo_bytes;
static int64_t memo_limit = DSL_MEMOIZATION_DEFAULT_SIZE;

static void unlink_entry(Entry *e) {
    if (e->prev)
        e->prev->next = e->next;
    else
        newest = e->next;
    if (e->next)
        e->next->prev = e->prev;
    else
        oldest = e->prev;
    e->next = e->prev = NULL;
}

static void push_newest(Entry *e) {
    e->prev = NULL;
    e->next = newest;
    if (newest) newest->prev = e;
    newest = e;
    if (!oldest) oldest = e;
}

static void free_entry(Entry *e) {
    if (e->data) {
        for (int i = 0; i < e->buffer_count; i++)
            free(e->data[i]);
    }
    free(e->data);
    free(e->shape);
    free(e->types);
    free(e->key);
    free(e->func);
    free(e);
}

/// Drops entry `e` (the lock held).
static void drop(Entry *e) {
    unlink_entry(e);
    memo_bytes -= e->bytes;
    free_entry(e);
}

/// Drops the least recently used entries until `room` more bytes fit under the cap.
static void make_room(int64_t room) {
    while (oldest && memo_bytes + room > memo_limit)
        drop(oldest);
}

/// The region of buffer `b` in elements (the product of its extents), or -1 if one is negative.
static int64_t elements_of(const dsl_buffer_t *b) {
    int64_t n = 1;
    for (int d = 0; d < b->dimensions; d++) {
        if (b->dim[d].extent < 0) return -1;
        n *= b->dim[d].extent;
    }
    return n;
}

/// Bytes per element of `b` (a bool takes one).
static int64_t element_bytes(const dsl_buffer_t *b) {
    return (b->type.bits + 7) / 8;
}

/// Copies between the region of `b` (strided) and the dense block `dense`, in `to_dense`'s
/// direction: every element, dimension 0 innermost.
static void copy_region(const dsl_buffer_t *b, uint8_t *dense, int to_dense) {
    const int64_t size = element_bytes(b);
    const int dims = b->dimensions;
    const int64_t count = elements_of(b);
    if (count <= 0) return;
    if (dims == 0) {
        if (to_dense)
            memcpy(dense, b->host, (size_t)size);
        else
            memcpy(b->host, dense, (size_t)size);
        return;
    }
    // Rows along dimension 0, which are contiguous where its stride is 1.
    const int64_t row = b->dim[0].extent;
    const int contiguous = b->dim[0].stride == 1;
    int32_t position[16] = {0};
    int32_t *pos = dims <= 16 ? position : (int32_t *)calloc((size_t)dims, sizeof(int32_t));
    if (!pos) return;
    for (int64_t done = 0; done < count; done += row) {
        int64_t offset = 0;
        for (int d = 1; d < dims; d++)
            offset += (int64_t)pos[d] * b->dim[d].stride;
        uint8_t *memory = b->host + offset * size;
        uint8_t *block = dense + done * size;
        if (contiguous) {
            if (to_dense)
                memcpy(block, memory, (size_t)(row * size));
            else
                memcpy(memory, block, (size_t)(row * size));
        } else {
            for (int64_t x = 0; x < row; x++) {
                uint8_t *m = memory + x * b->dim[0].stride * size;
                if (to_dense)
                    memcpy(block + x * size, m, (size_t)size);
                else
                    memcpy(m, block + x * size, (size_t)size);
            }
        }
        for (int d = 1; d < dims; d++) {
            if (++pos[d] < b->dim[d].extent) break;
            pos[d] = 0;
        }
    }
    if (pos != position) free(pos);
}

/// Whether entry `e` is the one of `func` and `key` for buffers shaped as `buffers`.
static int matches(const Entry *e, const char *func, const uint64_t *key, int32_t key_words,
                   dsl_buffer_t **buffers, int32_t buffer_count) {
    if (e->key_words != key_words || e->buffer_count != buffer_count) return 0;
    if (memcmp(e->key, key, sizeof(uint64_t) * (size_t)key_words) != 0) return 0;
    if (strcmp(e->func, func) != 0) return 0;
    for (int i = 0; i < buffer_count; i++) {
        const dsl_buffer_t *b = buffers[i];
        if (b->dimensions != e->dimensions || b->type.code != e->types[i].code ||
            b->type.bits != e->types[i].bits)
            return 0;
        for (int d = 0; d < b->dimensions; d++) {
            if (b->dim[d].min != e->shape[2 * d] || b->dim[d].extent != e->shape[2 * d + 1])
                return 0;
        }
    }
    return 1;
}

static Entry *find(const char *func, const uint64_t *key, int32_t key_words, dsl_buffer_t **buffers,
                   int32_t buffer_count) {
    for (Entry *e = newest; e; e = e->next) {
        if (matches(e, func, key, key_words, buffers, buffer_count)) return e;
    }
    return NULL;
}

DSL_RUNTIME_EXPORT int32_t dsl_runtime_memoization_lookup(const char *func, const uint64_t *key,
                                                          int32_t key_words, dsl_buffer_t **buffers,
                                                          int32_t buffer_count) {
    pthread_mutex_lock(&memo_lock);
    Entry *e = find(func, key, key_words, buffers, buffer_count);
    if (e) {
        for (int i = 0; i < buffer_count; i++)
            copy_region(buffers[i], e->data[i], 0);
        unlink_entry(e);
        push_newest(e);
    }
    pthread_mutex_unlock(&memo_lock);
    return e ? 0 : 1;
}

/// A new entry holding copies of the buffers' regions; null when out of memory.
static Entry *make_entry(const char *func, const uint64_t *key, int32_t key_words,
                         dsl_buffer_t **buffers, int32_t buffer_count, int64_t bytes) {
    Entry *e = (Entry *)calloc(1, sizeof(Entry));
    if (!e) return NULL;
    const int dims = buffers[0]->dimensions;
    e->func = strdup(func);
    e->key = (uint64_t *)malloc(sizeof(uint64_t) * (size_t)(key_words > 0 ? key_words : 1));
    e->types = (dsl_type_t *)malloc(sizeof(dsl_type_t) * (size_t)buffer_count);
    e->shape = (int32_t *)malloc(sizeof(int32_t) * (size_t)(2 * dims + 1));
    e->data = (uint8_t **)calloc((size_t)buffer_count, sizeof(uint8_t *));
    if (!e->func || !e->key || !e->types || !e->shape || !e->data) {
        free_entry(e);
        return NULL;
    }
    memcpy(e->key, key, sizeof(uint64_t) * (size_t)key_words);
    e->key_words = key_words;
    e->buffer_count = buffer_count;
    e->dimensions = dims;
    for (int d = 0; d < dims; d++) {
        e->shape[2 * d] = buffers[0]->dim[d].min;
        e->shape[2 * d + 1] = buffers[0]->dim[d].extent;
    }
    for (int i = 0; i < buffer_count; i++) {
        const dsl_buffer_t *b = buffers[i];
        e->types[i] = b->type;
        e->data[i] = (uint8_t *)malloc((size_t)(elements_of(b) * element_bytes(b) + 1));
        if (!e->data[i]) {
            free_entry(e);
            return NULL;
        }
        copy_region(b, e->data[i], 1);
    }
    e->bytes = bytes;
    return e;
}

DSL_RUNTIME_EXPORT int32_t dsl_runtime_memoization_store(const char *func, const uint64_t *key,
                                                         int32_t key_words, dsl_buffer_t **buffers,
                                                         int32_t buffer_count,
                                                         int32_t has_eviction_key,
                                                         uint64_t eviction_key) {
    if (buffer_count <= 0) return 0;
    int64_t bytes = 0;
    for (int i = 0; i < buffer_count; i++) {
        int64_t n = elements_of(buffers[i]);
        if (n < 0 || buffers[i]->dimensions != buffers[0]->dimensions) return 0;
        bytes += n * element_bytes(buffers[i]);
    }
    pthread_mutex_lock(&memo_lock);
    // Too large to keep, or stored meanwhile by another thread that missed too: nothing to do.
    // Out of memory is not an error either: the run has its values; the next one computes them.
    if (bytes <= memo_limit && !find(func, key, key_words, buffers, buffer_count)) {
        make_room(bytes);
        Entry *e = make_entry(func, key, key_words, buffers, buffer_count, bytes);
        if (e) {
            e->has_eviction_key = has_eviction_key;
            e->eviction_key = eviction_key;
            push_newest(e);
            memo_bytes += bytes;
        }
    }
    pthread_mutex_unlock(&memo_lock);
    return 0;
}

DSL_RUNTIME_EXPORT void dsl_memoization_cache_set_size(int64_t bytes) {
    pthread_mutex_lock(&memo_lock);
    memo_limit = bytes > 0 ? bytes : DSL_MEMOIZATION_DEFAULT_SIZE;
    make_room(0);
    pthread_mutex_unlock(&memo_lock);
}

DSL_RUNTIME_EXPORT int64_t dsl_memoization_cache_bytes(void) {
    pthread_mutex_lock(&memo_lock);
    int64_t bytes = memo_bytes;
    pthread_mutex_unlock(&memo_lock);
    return bytes;
}

DSL_RUNTIME_EXPORT void dsl_memoization_cache_evict(uint64_t eviction_key) {
    pthread_mutex_lock(&memo_lock);
    for (Entry *e = newest; e;) {
        Entry *next = e->next;
        if (e->has_eviction_key && e->eviction_key == eviction_key) drop(e);
        e = next;
    }
    pthread_mutex_unlock(&memo_lock);
}

DSL_RUNTIME_EXPORT void dsl_memoization_cache_cleanup(void) {
    pthread_mutex_lock(&memo_lock);
    while (oldest)
        drop(oldest);
    pthread_mutex_unlock(&memo_lock);
}
