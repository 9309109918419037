// The lines of print(), print_when() and tracing: generated code hands over a format and the
// values' bits (runtime/Runtime.h); this formats the line and passes it to the print handler,
// whole, so that lines from parallel loops never interleave.
#include <stdio.h>
#include <string.h>

#include "dsl/runtime/dsl_runtime.h"
#include "runtime/Runtime.h"

// A longer line is cut to 8191 characters with its "...\n", as Halide cuts its messages.
enum { kLineCapacity = 8192 };

// Set by one thread and read by any: accessed atomically.
static dsl_print_handler_t print_handler = NULL;

DSL_RUNTIME_EXPORT void dsl_set_print_handler(dsl_print_handler_t h) {
    __atomic_store_n(&print_handler, h, __ATOMIC_RELEASE);
}

static void default_print(const char *line) {
    // One call per line: stdio locks the stream around it.
    fputs(line, stderr);
}

typedef struct {
    char text[kLineCapacity];
    size_t length;
    int cut;
} line_t;

static void append(line_t *line, const char *s, size_t n) {
    // Room is kept for "...\n" and the terminator.
    size_t room = kLineCapacity - 5 - line->length;
    if (n > room) {
        n = room;
        line->cut = 1;
    }
    memcpy(line->text + line->length, s, n);
    line->length += n;
}

static void append_value(line_t *line, int kind, uint64_t bits) {
    char s[64];
    int n = 0;
    switch (kind) {
        case dsl_print_int:
            n = snprintf(s, sizeof(s), "%lld", (long long)(int64_t)bits);
            break;
        case dsl_print_uint:
            n = snprintf(s, sizeof(s), "%llu", (unsigned long long)bits);
            break;
        case dsl_print_float: {
            double d;
            memcpy(&d, &bits, sizeof(d));
            n = snprintf(s, sizeof(s), "%f", d);
            break;
        }
        case dsl_print_double: {
            double d;
            memcpy(&d, &bits, sizeof(d));
            n = snprintf(s, sizeof(s), "%e", d);
            break;
        }
        default:
            n = snprintf(s, sizeof(s), "%p", (void *)(uintptr_t)bits);
            break;
    }
    if (n < 0) n = 0;
    if ((size_t)n >= sizeof(s)) n = (int)sizeof(s) - 1;
    append(line, s, (size_t)n);
}

// `format` with each {k} replaced by value k (see dsl_runtime_print), into `line`.
static void format_values(line_t *line, const char *format, int32_t count,
                          const int32_t *descriptors, const uint64_t *slots) {
    line->length = 0;
    line->cut = 0;
    for (const char *p = format; *p && !line->cut; p++) {
        if (p[0] == '{' && p[1] == '{') {
            append(line, "{", 1);
            p++;
            continue;
        }
        if (p[0] != '{') {
            append(line, p, 1);
            continue;
        }
        int index = 0;
        const char *q = p + 1;
        while (*q >= '0' && *q <= '9')
            index = index * 10 + (*q++ - '0');
        if (*q != '}' || q == p + 1 || index >= count) {
            append(line, p, 1);  // not a {k}: written as it is
            continue;
        }
        p = q;
        size_t first = 0;
        for (int k = 0; k < index; k++)
            first += (size_t)descriptors[2 * k + 1];
        int kind = descriptors[2 * index], lanes = descriptors[2 * index + 1];
        if (lanes == 1) {
            append_value(line, kind, slots[first]);
            continue;
        }
        append(line, "<", 1);
        for (int lane = 0; lane < lanes; lane++) {
            if (lane) append(line, ", ", 2);
            append_value(line, kind, slots[first + (size_t)lane]);
        }
        append(line, ">", 1);
    }
    if (line->cut) {
        memcpy(line->text + line->length, "...", 3);
        line->length += 3;
    }
}

DSL_RUNTIME_EXPORT void dsl_runtime_print(const char *format, int32_t count,
                                          const int32_t *descriptors, const uint64_t *slots) {
    line_t line;
    format_values(&line, format, count, descriptors, slots);
    line.text[line.length++] = '\n';
    line.text[line.length] = 0;
    dsl_runtime_print_line(line.text);
}

DSL_RUNTIME_EXPORT int dsl_runtime_error_requirement_failed(const char *format, int32_t count,
                                                            const int32_t *descriptors,
                                                            const uint64_t *slots) {
    line_t line;
    format_values(&line, format, count, descriptors, slots);
    line.text[line.length] = 0;
    return dsl_runtime_report(dsl_error_requirement_failed, "Error: %s", line.text);
}

DSL_RUNTIME_EXPORT void dsl_runtime_print_line(const char *line) {
    const dsl_runtime_hooks_t *hooks = dsl_runtime_current_hooks();
    if (hooks && hooks->print) {
        hooks->print(hooks->context, line);
        return;
    }
    dsl_print_handler_t h = __atomic_load_n(&print_handler, __ATOMIC_ACQUIRE);
    if (h) {
        h(line);
    } else {
        default_print(line);
    }
}
