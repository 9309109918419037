// Tracing events (Func::trace_loads(), trace_stores(), trace_realizations()): generated code
// fills a dsl_trace_event_t on its stack and calls dsl_runtime_trace, which hands it to the
// JIT's custom_trace hook, the program's trace handler, or the default, which writes it as one
// line through the print handler in Halide's format.
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "dsl/runtime/dsl_runtime.h"
#include "runtime/Runtime.h"

// Set by one thread and read by any: accessed atomically.
static dsl_trace_handler_t trace_handler = NULL;
static int32_t last_id = 0;

DSL_RUNTIME_EXPORT void dsl_set_trace_handler(dsl_trace_handler_t h) {
    __atomic_store_n(&trace_handler, h, __ATOMIC_RELEASE);
}

enum { kTraceLineCapacity = 4096 };

typedef struct {
    char text[kTraceLineCapacity];
    size_t length;
} trace_line_t;

// Appends as printf does; a line that does not fit is cut (room is kept for the newline).
__attribute__((format(printf, 2, 3))) static void put(trace_line_t *line, const char *format, ...) {
    size_t room = kTraceLineCapacity - 2 - line->length;
    if (room == 0) return;
    va_list args;
    va_start(args, format);
    int n = vsnprintf(line->text + line->length, room + 1, format, args);
    va_end(args);
    if (n < 0) return;
    line->length += (size_t)n < room ? (size_t)n : room;
}

// IEEE half and bfloat16 bits as a float.
static float half_to_float(uint16_t h) {
    uint32_t sign = (uint32_t)(h >> 15) << 31, exponent = (h >> 10) & 0x1f, mantissa = h & 0x3ff;
    uint32_t bits;
    if (exponent == 0x1f) {
        bits = sign | 0x7f800000u | (mantissa << 13);  // inf, nan
    } else if (exponent != 0) {
        bits = sign | ((exponent + 112) << 23) | (mantissa << 13);
    } else if (mantissa == 0) {
        bits = sign;
    } else {  // subnormal: normalize
        exponent = 113;
        while (!(mantissa & 0x400)) {
            mantissa <<= 1;
            exponent--;
        }
        bits = sign | (exponent << 23) | ((mantissa & 0x3ff) << 13);
    }
    float f;
    memcpy(&f, &bits, sizeof(f));
    return f;
}

static float bfloat_to_float(uint16_t b) {
    uint32_t bits = (uint32_t)b << 16;
    float f;
    memcpy(&f, &bits, sizeof(f));
    return f;
}

// Lane `lane` of a value of type `t` at `value`.
static void put_value(trace_line_t *line, dsl_type_t t, const void *value, int lane) {
    int bytes = (t.bits + 7) / 8;
    const unsigned char *at = (const unsigned char *)value + (size_t)lane * (size_t)bytes;
    uint64_t bits = 0;
    memcpy(&bits, at, (size_t)bytes <= sizeof(bits) ? (size_t)bytes : sizeof(bits));
    switch (t.code) {
        case dsl_type_int: {
            int shift = 64 - 8 * bytes;
            int64_t v = (int64_t)(bits << shift) >> shift;
            put(line, "%lld", (long long)v);
            return;
        }
        case dsl_type_uint:
            put(line, "%llu", (unsigned long long)(t.bits == 1 ? (bits & 1) : bits));
            return;
        case dsl_type_float:
            if (t.bits == 16) {
                put(line, "%f", (double)half_to_float((uint16_t)bits));
            } else if (t.bits == 32) {
                float f;
                memcpy(&f, at, sizeof(f));
                put(line, "%f", (double)f);
            } else {
                double d;
                memcpy(&d, at, sizeof(d));
                put(line, "%f", d);
            }
            return;
        case dsl_type_bfloat:
            put(line, "%f", (double)bfloat_to_float((uint16_t)bits));
            return;
        default:
            put(line, "%p", *(void *const *)(const void *)at);
            return;
    }
}

static const char *const event_names[] = {
    "Load",    "Store",       "Begin realization", "End realization", "Produce", "End produce",
    "Consume", "End consume", "Begin pipeline",    "End pipeline",    "Tag"};

// "Store f.0(<0, 1, 2, 3>, <4, 4, 4, 4>) = <0, 1, 2, 3>", "Produce f.0(0, 10, 0, 8)", ...
static int32_t default_trace(const dsl_trace_event_t *e) {
    trace_line_t line;
    line.length = 0;
    int code = (int)e->event;
    put(&line, "%s %s.%d(", code >= 0 && code <= dsl_trace_tag ? event_names[code] : "Event",
        e->func ? e->func : "", (int)e->value_index);
    if (code == dsl_trace_load || code == dsl_trace_store) {
        int lanes = e->type.lanes > 0 ? e->type.lanes : 1;
        int dims = e->dimensions / lanes;
        for (int d = 0; d < dims; d++) {
            put(&line, d ? ", " : "");
            if (lanes > 1) put(&line, "<");
            for (int l = 0; l < lanes; l++)
                put(&line, l ? ", %d" : "%d", (int)e->coordinates[d * lanes + l]);
            if (lanes > 1) put(&line, ">");
        }
        put(&line, ") = ");
        if (lanes > 1) put(&line, "<");
        for (int l = 0; l < lanes; l++) {
            if (l) put(&line, ", ");
            put_value(&line, e->type, e->value, l);
        }
        if (lanes > 1) put(&line, ">");
    } else {
        for (int i = 0; i < e->dimensions && e->coordinates; i++)
            put(&line, i ? ", %d" : "%d", (int)e->coordinates[i]);
        put(&line, ")");
        if (code == dsl_trace_tag) put(&line, " tag = \"%s\"", e->trace_tag ? e->trace_tag : "");
    }
    line.text[line.length++] = '\n';
    line.text[line.length] = 0;
    dsl_runtime_print_line(line.text);
    return __atomic_add_fetch(&last_id, 1, __ATOMIC_RELAXED);
}

DSL_RUNTIME_EXPORT int32_t dsl_runtime_trace(const dsl_trace_event_t *event) {
    const dsl_runtime_hooks_t *hooks = dsl_runtime_current_hooks();
    if (hooks && hooks->trace) return hooks->trace(hooks->context, event);
    dsl_trace_handler_t h = __atomic_load_n(&trace_handler, __ATOMIC_ACQUIRE);
    return h ? h(event) : default_trace(event);
}
