// The matrix multiplication as a generator, for dsl_add_library: `scheduled=false` keeps the
// default schedule.
#include "dsl/Generator.h"
#include "matmul.h"

namespace {

using namespace dsl;

class MatmulGenerator : public Generator<MatmulGenerator> {
  public:
    GeneratorParam<bool> scheduled{"scheduled", true};
    Input<Buffer<float>> a{"a", 2};
    Input<Buffer<float>> b{"b", 2};
    Output<Buffer<float>> c{"c", 2};

    void generate() {
        pipeline_ = dsl_apps::make_matmul(a, b);
        c = pipeline_.output;
    }
    void schedule() {
        if (scheduled) dsl_apps::schedule_matmul(pipeline_, get_target());
    }

  private:
    dsl_apps::MatmulPipeline pipeline_;
};

}  // namespace

DSL_REGISTER_GENERATOR(MatmulGenerator, matmul)
