#pragma once
/// Replacing the runtime's print, error and memory functions for the pipelines realize() runs,
/// as Halide's JIT handlers do:
///
///   void my_error(JITUserContext *, const char *message) { ... }
///   f.jit_handlers().custom_error = my_error;
///   f.realize({100});          // an error while it runs goes to my_error; realize() returns
///
/// The handlers of a Func (Func::jit_handlers) apply to each realize() of it; those of a
/// JITUserContext passed to realize() take their place for that call, where set. Handlers run
/// on whichever thread hits the event (parallel loops run on the thread pool).
///   custom_print   receives each line print(), print_when() and tracing write (with its '\n').
///   custom_error   receives the message of an error the pipeline meets while it runs (a buffer
///                  too small, a failed require()), without the "Error: " that starts it when
///                  thrown (as Halide's handlers receive theirs); realize() then returns instead of
///                  throwing a RuntimeError, and the outputs hold what was written before the
///                  error. Errors found before it runs (compiling, the sizes given) still throw.
///   custom_malloc  allocates the pipeline's heap memory (intermediate Funcs computed at root
///                  or too large for the stack); custom_free releases it (with custom_malloc
///                  and no custom_free, memory is released with free()). The bytes asked for
///                  are the data's; the generated code needs no more alignment than an
///                  element's, but runs fastest on blocks aligned to 64 bytes (a cache line).
///   custom_trace   receives each tracing event (Func::trace_loads(), trace_stores(),
///                  trace_realizations()) as a dsl_trace_event_t (Halide's halide_trace_event_t)
///                  in place of its line of text, and returns the id that the events nested in
///                  it get as their parent_id.
///   custom_do_par_for  runs each parallel loop in place of the thread pool: it must call
///                  task(context, i, closure) once for each i in [min, min + extent), on any
///                  threads, and return 0 (or an error code, which stops the pipeline). A task's
///                  nonzero result is the pipeline's error even if the handler ignores it.
///                  default_do_par_for() is the thread pool's, for handlers that wrap it.
///   custom_do_task runs one iteration of a parallel loop (task(context, i, closure)), on the
///                  thread pool unless custom_do_par_for takes over.
/// Without handlers the runtime's own are used: dsl_set_print_handler, dsl_set_error_handler,
/// dsl_set_trace_handler (dsl/runtime/dsl_runtime.h), and its allocator.

#include <cstddef>
#include <cstdint>

#include "dsl/runtime/dsl_runtime.h"

namespace dsl {

struct JITUserContext;

struct JITHandlers {
    void (*custom_print)(JITUserContext *context, const char *line) = nullptr;
    void (*custom_error)(JITUserContext *context, const char *message) = nullptr;
    void *(*custom_malloc)(JITUserContext *context, size_t bytes) = nullptr;
    void (*custom_free)(JITUserContext *context, void *block) = nullptr;
    int32_t (*custom_trace)(JITUserContext *context, const dsl_trace_event_t *event) = nullptr;
    int (*custom_do_par_for)(JITUserContext *context, int (*task)(JITUserContext *, int, uint8_t *),
                             int min, int extent, uint8_t *closure) = nullptr;
    int (*custom_do_task)(JITUserContext *context, int (*task)(JITUserContext *, int, uint8_t *),
                          int index, uint8_t *closure) = nullptr;
};

/// Passed to realize(): its handlers are called with a pointer to it, so a program can derive
/// from it to carry its own state to them.
struct JITUserContext {
    JITHandlers handlers;
};

/// The thread pool's parallel loop (what runs without custom_do_par_for): task(context, i,
/// closure) for each i in [min, min + extent), each through custom_do_task where `context`'s
/// handlers have one; returns the first nonzero result.
int default_do_par_for(JITUserContext *context, int (*task)(JITUserContext *, int, uint8_t *),
                       int min, int extent, uint8_t *closure);
/// One iteration as the thread pool runs it: task(context, index, closure).
int default_do_task(JITUserContext *context, int (*task)(JITUserContext *, int, uint8_t *),
                    int index, uint8_t *closure);

/// A function of the program that a JIT-compiled pipeline calls under some name, bound per
/// pipeline (Pipeline::set_jit_externs): `JITExtern{my_function}`.
class JITExtern {
  public:
    template <typename R, typename... A>
    JITExtern(R (*function)(A...)) : address_(reinterpret_cast<void *>(function)) {}
    void *address() const { return address_; }

  private:
    void *address_;
};

}  // namespace dsl
