// The camera pipeline as a generator, for dsl_add_library: `scheduled=false` keeps the default
// schedule.
#include "camera_pipe.h"
#include "dsl/Generator.h"

namespace {

using namespace dsl;

class CameraPipeGenerator : public Generator<CameraPipeGenerator> {
  public:
    GeneratorParam<bool> scheduled{"scheduled", true};
    Input<Buffer<uint16_t>> input{"input", 2};
    Output<Buffer<uint8_t>> output{"output", 3};

    void generate() {
        pipeline_ = dsl_apps::make_camera_pipe(input);
        output = pipeline_.output;
    }
    void schedule() {
        if (scheduled) dsl_apps::schedule_camera_pipe(pipeline_, get_target());
    }

  private:
    dsl_apps::CameraPipePipeline pipeline_;
};

}  // namespace

DSL_REGISTER_GENERATOR(CameraPipeGenerator, camera_pipe)
