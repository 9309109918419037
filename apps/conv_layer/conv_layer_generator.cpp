// The convolution layers as generators, for dsl_add_library: `conv_layer` (dense, 4-D weights)
// and `depthwise_layer` (one kernel per channel, 3-D weights). `kernel` is K (odd, 1..7);
// `scheduled=false` keeps the default schedule.
#include "conv_layer.h"
#include "dsl/Generator.h"

namespace {

using namespace dsl;

template <typename Derived, bool kDepthwise>
class LayerGenerator : public Generator<Derived> {
  public:
    GeneratorParam<int> kernel{"kernel", 3, 1, 7};
    GeneratorParam<bool> scheduled{"scheduled", true};
    Input<Buffer<float>> input{"input", 4};
    Input<Buffer<float>> weights{"weights", kDepthwise ? 3 : 4};
    Input<Buffer<float>> bias{"bias", 1};
    Output<Buffer<float>> output{"output", 4};

    void generate() {
        pipeline_ = dsl_apps::make_conv_layer(input, weights, bias, kernel, kDepthwise);
        output = pipeline_.output;
    }
    void schedule() {
        if (scheduled) dsl_apps::schedule_conv_layer(pipeline_, this->get_target());
    }

  private:
    dsl_apps::ConvLayerPipeline pipeline_;
};

class ConvLayerGenerator : public LayerGenerator<ConvLayerGenerator, false> {};
class DepthwiseLayerGenerator : public LayerGenerator<DepthwiseLayerGenerator, true> {};

}  // namespace

DSL_REGISTER_GENERATOR(ConvLayerGenerator, conv_layer)
DSL_REGISTER_GENERATOR(DepthwiseLayerGenerator, depthwise_layer)
