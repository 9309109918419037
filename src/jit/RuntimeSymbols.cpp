#include "jit/RuntimeSymbols.h"

#include <set>

#include "runtime/Runtime.h"

namespace dsl::jit {

std::vector<RuntimeSymbol> runtime_symbols() {
    return {
        {runtime::kMallocSymbol, reinterpret_cast<void *>(&dsl_runtime_malloc)},
        {runtime::kFreeSymbol, reinterpret_cast<void *>(&dsl_runtime_free)},
#define DSL_RUNTIME_SYMBOL(f) {#f, reinterpret_cast<void *>(&f)}
        DSL_RUNTIME_SYMBOL(dsl_runtime_parallel_for),
        DSL_RUNTIME_SYMBOL(dsl_runtime_print),
        DSL_RUNTIME_SYMBOL(dsl_runtime_trace),
        DSL_RUNTIME_SYMBOL(dsl_runtime_memoization_lookup),
        DSL_RUNTIME_SYMBOL(dsl_runtime_memoization_store),
        DSL_RUNTIME_SYMBOL(dsl_runtime_user_context),
        DSL_RUNTIME_SYMBOL(dsl_runtime_error_bad_dimensions),
        DSL_RUNTIME_SYMBOL(dsl_runtime_error_bad_type),
        DSL_RUNTIME_SYMBOL(dsl_runtime_error_buffer_is_null),
        DSL_RUNTIME_SYMBOL(dsl_runtime_error_buffer_extent_negative),
        DSL_RUNTIME_SYMBOL(dsl_runtime_error_buffer_span_too_large),
        DSL_RUNTIME_SYMBOL(dsl_runtime_error_output_overlaps),
        DSL_RUNTIME_SYMBOL(dsl_runtime_error_access_out_of_bounds),
        DSL_RUNTIME_SYMBOL(dsl_runtime_error_output_too_small),
        DSL_RUNTIME_SYMBOL(dsl_runtime_error_tuple_shapes_differ),
        DSL_RUNTIME_SYMBOL(dsl_runtime_error_bound_too_small),
        DSL_RUNTIME_SYMBOL(dsl_runtime_error_region_smaller_than_window),
        DSL_RUNTIME_SYMBOL(dsl_runtime_error_fold_too_small),
        DSL_RUNTIME_SYMBOL(dsl_runtime_error_fused_ranges_differ),
        DSL_RUNTIME_SYMBOL(dsl_runtime_error_output_read_out_of_bounds),
        DSL_RUNTIME_SYMBOL(dsl_runtime_error_requirement_failed),
        DSL_RUNTIME_SYMBOL(dsl_runtime_error_specialize_fail),
        DSL_RUNTIME_SYMBOL(dsl_profiler_begin),
        DSL_RUNTIME_SYMBOL(dsl_profiler_switch),
        DSL_RUNTIME_SYMBOL(dsl_profiler_end),
        DSL_RUNTIME_SYMBOL(dsl_runtime_error_extern_stage_failed),
        DSL_RUNTIME_SYMBOL(dsl_runtime_error_extern_region_too_small),
        DSL_RUNTIME_SYMBOL(dsl_runtime_error_extern_region_outside_storage),
        DSL_RUNTIME_SYMBOL(dsl_runtime_error_param_too_small),
        DSL_RUNTIME_SYMBOL(dsl_runtime_error_param_too_large),
        DSL_RUNTIME_SYMBOL(dsl_runtime_error_int_param_too_small),
        DSL_RUNTIME_SYMBOL(dsl_runtime_error_int_param_too_large),
        DSL_RUNTIME_SYMBOL(dsl_runtime_error_uint_param_too_small),
        DSL_RUNTIME_SYMBOL(dsl_runtime_error_uint_param_too_large),
        DSL_RUNTIME_SYMBOL(dsl_runtime_error_out_of_memory),
        DSL_RUNTIME_SYMBOL(dsl_runtime_error_buffer_too_large),
        DSL_RUNTIME_SYMBOL(dsl_runtime_error_bounds_overflow),
        DSL_RUNTIME_SYMBOL(dsl_runtime_error_stride_not_one),
        DSL_RUNTIME_SYMBOL(dsl_runtime_error_constraint_violated),
        DSL_RUNTIME_SYMBOL(dsl_runtime_opencl_launch),
        DSL_RUNTIME_SYMBOL(dsl_runtime_cuda_launch),
        DSL_RUNTIME_SYMBOL(dsl_runtime_copy_to_host),
        DSL_RUNTIME_SYMBOL(dsl_runtime_set_host_dirty),
        DSL_RUNTIME_SYMBOL(dsl_runtime_device_free),
        DSL_RUNTIME_SYMBOL(dsl_runtime_npu_gemm),
        DSL_RUNTIME_SYMBOL(dsl_runtime_npu_requantize),
        DSL_RUNTIME_SYMBOL(dsl_runtime_npu_next_requantization),
        DSL_RUNTIME_SYMBOL(dsl_runtime_npu_next_store),
#undef DSL_RUNTIME_SYMBOL
    };
}

bool is_runtime_symbol(const std::string &name) {
    static const std::set<std::string> names = [] {
        std::set<std::string> all;
        for (const RuntimeSymbol &s : runtime_symbols())
            all.insert(s.name);
        return all;
    }();
    return names.count(name) > 0;
}

}  // namespace dsl::jit
