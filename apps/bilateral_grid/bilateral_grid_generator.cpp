// The bilateral grid as a generator, for dsl_add_library: `scheduled=false` keeps the default
// schedule.
#include "bilateral_grid.h"
#include "dsl/Generator.h"

namespace {

using namespace dsl;

class BilateralGridGenerator : public Generator<BilateralGridGenerator> {
  public:
    GeneratorParam<bool> scheduled{"scheduled", true};
    Input<Buffer<float>> input{"input", 2};
    Output<Buffer<float>> output{"output", 2};

    void generate() {
        pipeline_ = dsl_apps::make_bilateral_grid(input);
        output = pipeline_.output;
    }
    void schedule() {
        if (scheduled) dsl_apps::schedule_bilateral_grid(pipeline_, get_target());
    }

  private:
    dsl_apps::BilateralGridPipeline pipeline_;
};

}  // namespace

DSL_REGISTER_GENERATOR(BilateralGridGenerator, bilateral_grid)
