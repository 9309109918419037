// The local Laplacian filter as a generator, for dsl_add_library: `scheduled=false` gives the
// baseline schedule (every pyramid level at root, serial, no SIMD; see local_laplacian.h).
#include "dsl/Generator.h"
#include "local_laplacian.h"

namespace {

using namespace dsl;

class LocalLaplacianGenerator : public Generator<LocalLaplacianGenerator> {
  public:
    GeneratorParam<bool> scheduled{"scheduled", true};
    Input<Buffer<uint16_t>> input{"input", 3};
    Input<int> levels{"levels", 8, 2, 32};
    Input<float> alpha{"alpha", 1.0f, 0.0f, 10.0f};
    Input<float> beta{"beta", 1.0f, 0.0f, 2.0f};
    Output<Buffer<uint16_t>> output{"output", 3};

    void generate() {
        pipeline_ = dsl_apps::make_local_laplacian(input, levels, alpha, beta);
        output = pipeline_.output;
    }
    void schedule() {
        if (scheduled) {
            dsl_apps::schedule_local_laplacian(pipeline_, get_target());
        } else {
            dsl_apps::schedule_local_laplacian_naive(pipeline_);
        }
    }

  private:
    dsl_apps::LocalLaplacianPipeline pipeline_;
};

}  // namespace

DSL_REGISTER_GENERATOR(LocalLaplacianGenerator, local_laplacian)
