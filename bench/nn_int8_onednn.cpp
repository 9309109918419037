// nn_int8/onednn: oneDNN's matmul primitive, uint8 A (row-major, zero point 3 in the primitive's
// attributes) by int8 B into int32, on the shapes of nn_int8_bench.h. B is created row-major and
// reordered once, untimed, into the layout the primitive picks (a layer's weights). The timed
// call is execute + stream.wait(); the result is checked on sampled elements first, and the
// label names oneDNN's implementation and instruction set.
#include <random>
#include <string>
#include <unordered_map>

#include <oneapi/dnnl/dnnl.hpp>

#include "aligned_vector.h"
#include "nn_int8_bench.h"
#include "onednn_peer.h"

namespace dsl_bench {

namespace {

void run_onednn(benchmark::State &state, const Int8Shape &s, int threads) {
    OmpThreads omp(threads);
    if (!onednn_threads_set(state, omp)) return;
    using dnnl::memory;
    using tag = memory::format_tag;
    using dt = memory::data_type;
    AlignedVector<uint8_t> a(size_t(s.m) * s.k);
    AlignedVector<int8_t> b(size_t(s.k) * s.n);
    AlignedVector<int32_t> c(size_t(s.m) * s.n);
    for (size_t i = 0; i < a.size(); i++)
        a[i] = int8_bench_a(i);
    for (size_t i = 0; i < b.size(); i++)
        b[i] = int8_bench_b(i);
    try {
        dnnl::engine engine(dnnl::engine::kind::cpu, 0);
        dnnl::stream stream(engine);
        const memory::desc a_md({s.m, s.k}, dt::u8, tag::ab), c_md({s.m, s.n}, dt::s32, tag::ab),
            any_b_md({s.k, s.n}, dt::s8, tag::any), user_b_md({s.k, s.n}, dt::s8, tag::ab);
        dnnl::primitive_attr attr;
        attr.set_zero_points(DNNL_ARG_SRC, 0, {kInt8ZeroPointA});
        dnnl::matmul::primitive_desc pd(dnnl::matmul::desc(a_md, any_b_md, c_md), attr, engine);
        memory a_mem(a_md, engine, a.data()), c_mem(c_md, engine, c.data()),
            user_b_mem(user_b_md, engine, b.data());
        memory b_mem = user_b_mem;
        if (pd.weights_desc() != user_b_md) {
            b_mem = memory(pd.weights_desc(), engine);
            dnnl::reorder(user_b_mem, b_mem).execute(stream, user_b_mem, b_mem);
            stream.wait();
        }
        dnnl::matmul mm(pd);
        std::unordered_map<int, memory> args = {
            {DNNL_ARG_SRC, a_mem}, {DNNL_ARG_WEIGHTS, b_mem}, {DNNL_ARG_DST, c_mem}};
        auto run = [&] {
            mm.execute(stream, args);
            stream.wait();
        };
        run();
        std::mt19937 rng(5);
        for (int t = 0; t < 64; t++) {
            const int i = int(rng() % s.m), j = int(rng() % s.n);
            if (c[size_t(i) * s.n + j] != int8_reference_at(s, a.data(), b.data(), i, j)) {
                state.SkipWithError(("oneDNN's " + s.name() + " is wrong at " + std::to_string(i) +
                                     ", " + std::to_string(j))
                                        .c_str());
                return;
            }
        }
        time_int8(state, s, run);
        state.SetLabel(std::string("oneDNN ") + pd.impl_info_str() + ", " +
                       isa_name(dnnl::get_effective_cpu_isa()));
    } catch (const dnnl::error &e) {
        state.SkipWithError(("oneDNN: " + s.name() + ": " + e.what()).c_str());
    }
}

const bool registered = (int8_register("onednn", run_onednn), true);

}  // namespace

}  // namespace dsl_bench
