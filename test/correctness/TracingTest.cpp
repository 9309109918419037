// print(), print_when() and Func::trace_stores() / trace_loads() / trace_realizations(): the
// lines they write, captured through the runtime's print handler.
#include <gtest/gtest.h>

#include <algorithm>
#include <mutex>
#include <string>
#include <vector>

#include "dsl/dsl.h"
#include "dsl/runtime/dsl_runtime.h"

namespace dsl {
namespace {

std::mutex lines_mutex;
std::vector<std::string> lines;

void collect(const char *line) {
    std::lock_guard<std::mutex> lock(lines_mutex);
    lines.emplace_back(line);
}

/// Installs the collecting handler for the life of a test.
class Captured : public ::testing::Test {
  protected:
    void SetUp() override {
        lines.clear();
        dsl_set_print_handler(collect);
    }
    void TearDown() override { dsl_set_print_handler(nullptr); }
    static bool has(const std::string &line) {
        return std::find(lines.begin(), lines.end(), line + "\n") != lines.end();
    }
    static int count_starting(const std::string &prefix) {
        int n = 0;
        for (const std::string &l : lines)
            n += l.compare(0, prefix.size(), prefix) == 0;
        return n;
    }
};

using Print = Captured;
using Trace = Captured;

TEST_F(Print, PrintsItsArgumentsAndKeepsTheFirstValue) {
    Var x("x");
    Func f("f");
    f(x) = print(x * 2, "is twice", x, "and a float:", cast<float>(x) / 4) + 1;
    Buffer<int> out = f.realize({3});
    for (int i = 0; i < 3; i++)
        EXPECT_EQ(out(i), 2 * i + 1);
    ASSERT_EQ(lines.size(), 3u);
    EXPECT_TRUE(has("0 is twice 0 and a float: 0.000000"));
    EXPECT_TRUE(has("4 is twice 2 and a float: 0.500000"));
}

TEST_F(Print, PrintWhenPrintsOnlyWhereTheConditionHolds) {
    Var x("x"), y("y");
    Func f("f");
    Expr e = cast<uint8_t>(x + y);
    f(x, y) = print_when(x == 3 && y == 1, e, "at {3, 1}");
    Buffer<uint8_t> out = f.realize({5, 3});
    EXPECT_EQ(out(4, 2), 6);
    ASSERT_EQ(lines.size(), 1u);
    EXPECT_EQ(lines[0], "4 at {3, 1}\n");
}

TEST_F(Print, AVectorizedPrintWritesALinePerLane) {
    Var x("x");
    Func f("f");
    f(x) = print(x * 3);
    f.vectorize(x, 4);
    f.realize({8});
    ASSERT_EQ(lines.size(), 8u);
    for (int i = 0; i < 8; i++)
        EXPECT_EQ(lines[i], std::to_string(3 * i) + "\n") << "line " << i;
}

// print_when in a vectorized loop: one line for each lane whose condition holds.
TEST_F(Print, VectorizedPrintWhenPrintsTheLanesWhereItHolds) {
    Var x("x");
    Func f("f");
    f(x) = print_when(x % 3 == 1, x * 2, "at", x, 7);
    f.vectorize(x, 8);
    Buffer<int> out = f.realize({16});
    ASSERT_EQ(lines.size(), 5u);
    for (size_t i = 0; i < lines.size(); i++) {
        int at = 3 * static_cast<int>(i) + 1;
        EXPECT_EQ(lines[i], std::to_string(2 * at) + " at " + std::to_string(at) + " 7\n");
    }
    for (int i = 0; i < 16; i++)
        EXPECT_EQ(out(i), 2 * i);
}

// Floats print as printf's %f, float64 as %e, as Halide prints them.
TEST_F(Print, Float64PrintsInExponentForm) {
    Var x("x");
    Func f("print_double");
    f(x) = print(cast<double>(x) * 1.5e100, cast<float>(x) * 0.25f);
    f.realize({2});
    ASSERT_EQ(lines.size(), 2u);
    EXPECT_EQ(lines[1], "1.500000e+100 0.250000\n");
}

// A line longer than 8K is cut to 8191 characters, the last ones "...\n" (Halide's length).
TEST_F(Print, ALongLineIsCutAt8191Characters) {
    Var x("x");
    Func f("long_line");
    std::vector<Expr> args{x};
    for (int i = 0; i < 1000; i++)
        args.push_back(Expr(std::string("0123456789")));
    f(x) = print(args);
    Buffer<int> out = f.realize({1});
    EXPECT_EQ(out(0), 0);
    ASSERT_EQ(lines.size(), 1u);
    EXPECT_EQ(lines[0].size(), 8191u);
    EXPECT_EQ(lines[0].substr(lines[0].size() - 4), "...\n");
}

TEST_F(Print, WritesToStderrWithoutAHandler) {
    dsl_set_print_handler(nullptr);
    Var x("x");
    Func f("f");
    f(x) = print(x, "from stderr");
    testing::internal::CaptureStderr();
    f.realize({2});
    std::string err = testing::internal::GetCapturedStderr();
    EXPECT_NE(err.find("1 from stderr\n"), std::string::npos) << err;
}

TEST_F(Trace, StoresInTheOrderTheScheduleComputes) {
    Var x("x"), y("y");
    Func g("gradient");
    g(x, y) = x + y;
    g.trace_stores();
    g.realize({2, 2});
    std::vector<std::string> expected = {
        "Begin pipeline gradient.0()\n", "Store gradient.0(0, 0) = 0\n",
        "Store gradient.0(1, 0) = 1\n",  "Store gradient.0(0, 1) = 1\n",
        "Store gradient.0(1, 1) = 2\n",  "End pipeline gradient.0()\n"};
    EXPECT_EQ(lines, expected);

    // Reordered: columns first.
    lines.clear();
    Func h("h");
    h(x, y) = x + y;
    h.reorder(y, x).trace_stores();
    h.realize({2, 2});
    expected = {"Begin pipeline h.0()\n", "Store h.0(0, 0) = 0\n", "Store h.0(0, 1) = 1\n",
                "Store h.0(1, 0) = 1\n",  "Store h.0(1, 1) = 2\n", "End pipeline h.0()\n"};
    EXPECT_EQ(lines, expected);
}

TEST_F(Trace, VectorizedStoresPrintVectors) {
    Var x("x"), y("y");
    Func g("g");
    g(x, y) = x + y;
    g.vectorize(x, 4).trace_stores();
    g.realize({4, 2});
    // Every coordinate has the lanes of the value, as in Halide.
    std::vector<std::string> expected = {
        "Begin pipeline g.0()\n", "Store g.0(<0, 1, 2, 3>, <0, 0, 0, 0>) = <0, 1, 2, 3>\n",
        "Store g.0(<0, 1, 2, 3>, <1, 1, 1, 1>) = <1, 2, 3, 4>\n", "End pipeline g.0()\n"};
    EXPECT_EQ(lines, expected);
}

TEST_F(Trace, LoadsAndTupleStores) {
    Var x("x");
    Func p("producer"), c("consumer");
    p(x) = Tuple(x * 10, cast<float>(x) + 0.5f);
    c(x) = p(x)[0] + cast<int>(p(x)[1]);
    p.compute_root().trace_stores().trace_loads();
    Buffer<int> out = c.realize({2});
    EXPECT_EQ(out(1), 11);
    EXPECT_TRUE(has("Store producer.0(1) = 10"));
    EXPECT_TRUE(has("Store producer.1(1) = 1.500000"));
    EXPECT_TRUE(has("Load producer.0(1) = 10"));
    EXPECT_TRUE(has("Load producer.1(0) = 0.500000"));
    EXPECT_EQ(count_starting("Load producer."), 4);
    EXPECT_EQ(count_starting("Store producer."), 4);
}

// The target features trace every Func, without a trace directive in the schedule; the same
// pipeline realized for the plain target traces nothing.
TEST_F(Trace, TargetFeaturesTraceEveryFunc) {
    Var x("x");
    Buffer<int> input(std::vector<int>{4}, "tf_input");
    input.fill(1);
    Func p("tf_producer"), c("tf_consumer");
    p(x) = x * 3 + input(x);
    c(x) = p(x) + p(x + 1);
    p.compute_root();
    Target traced = get_jit_target_from_environment()
                        .with_feature(Target::TraceLoads)
                        .with_feature(Target::TraceStores)
                        .with_feature(Target::TraceRealizations);
    EXPECT_EQ(Target(traced.to_string()), traced);
    Buffer<int> out = c.realize({2}, traced);
    EXPECT_EQ(out(1), 3 + 6 + 2);
    EXPECT_EQ(count_starting("Store tf_producer.0("), 3);
    EXPECT_EQ(count_starting("Store tf_consumer.0("), 2);
    EXPECT_EQ(count_starting("Load tf_producer.0("), 4);
    EXPECT_EQ(count_starting("Load tf_input.0("), 3);  // the input, read by the producer
    EXPECT_TRUE(has("Store tf_producer.0(2) = 7"));
    EXPECT_EQ(count_starting("Begin realization tf_producer.0("), 1);
    EXPECT_EQ(count_starting("Begin realization tf_consumer.0("), 1);
    lines.clear();
    Buffer<int> again = c.realize({2});
    EXPECT_EQ(again(1), 11);
    EXPECT_EQ(count_starting("Store"), 0);
    EXPECT_EQ(count_starting("Load"), 0);
}

// The target feature trace_pipeline: the pipeline's begin and end, nothing else.
TEST_F(Trace, TracePipelineTracesOnlyThePipeline) {
    Var x("x");
    Func p("tp_producer"), c("tp_consumer");
    p(x) = x * 2;
    c(x) = p(x) + 1;
    p.compute_root();
    Buffer<int> out =
        c.realize({3}, get_jit_target_from_environment().with_feature(Target::TracePipeline));
    EXPECT_EQ(out(2), 5);
    EXPECT_EQ(lines, (std::vector<std::string>{"Begin pipeline tp_consumer.0()\n",
                                               "End pipeline tp_consumer.0()\n"}));
}

// ImageParam::trace_loads(): the loads of that input only, and a new compile once it is set.
TEST_F(Trace, AnImageParamTracesItsLoads) {
    Var x("x");
    ImageParam a(Int(32), 1, "ip_a"), b(Int(32), 1, "ip_b");
    Buffer<int> ba(std::vector<int>{3}, "ba"), bb(std::vector<int>{3}, "bb");
    ba.fill(2);
    bb.fill(5);
    a.set(ba);
    b.set(bb);
    Func f("ip_sum");
    f(x) = a(x) + b(x);
    Buffer<int> out = f.realize({3});
    EXPECT_EQ(out(2), 7);
    EXPECT_EQ(count_starting("Load"), 0);
    a.trace_loads();
    out = f.realize({3});
    EXPECT_EQ(out(0), 7);
    EXPECT_EQ(count_starting("Load ip_a.0("), 3);
    EXPECT_EQ(count_starting("Load ip_b"), 0);
    EXPECT_TRUE(has("Load ip_a.0(1) = 2"));
}

TEST_F(Trace, RealizationsShowRegionsPerTile) {
    Var x("x"), y("y"), xo("xo"), yo("yo"), xi("xi"), yi("yi");
    Func p("p"), c("c");
    p(x, y) = x * y;
    c(x, y) = p(x, y) + p(x + 1, y);
    c.tile(x, y, xo, yo, xi, yi, 2, 2);
    p.compute_at(c, xo).trace_realizations();
    c.realize({4, 2});
    // Two tiles, each needing a 3x2 region of p.
    EXPECT_TRUE(has("Begin realization p.0(0, 3, 0, 2)")) << ::testing::PrintToString(lines);
    EXPECT_TRUE(has("Produce p.0(2, 3, 0, 2)")) << ::testing::PrintToString(lines);
    EXPECT_TRUE(has("End realization p.0(2, 3, 0, 2)")) << ::testing::PrintToString(lines);
    EXPECT_EQ(count_starting("Begin realization p.0"), 2);
    EXPECT_EQ(count_starting("End produce p.0"), 2);
    EXPECT_TRUE(has("Consume p.0(2, 3, 0, 2)")) << ::testing::PrintToString(lines);
    EXPECT_EQ(count_starting("End consume p.0"), 2);
}

TEST_F(Trace, TracingChangesNoValue) {
    Var x("x"), y("y");
    Func a("a"), b("b");
    a(x, y) = x * 3 + y;
    b(x, y) = a(x - 1, y) + a(x + 1, y);
    a.compute_at(b, y).vectorize(x, 4).trace_loads().trace_stores().trace_realizations();
    b.parallel(y).vectorize(x, 8).trace_stores();
    Buffer<int> out = b.realize({16, 4});
    for (int j = 0; j < 4; j++) {
        for (int i = 0; i < 16; i++)
            ASSERT_EQ(out(i, j), 6 * i + 2 * j);
    }
    EXPECT_EQ(count_starting("Store b.0"), 8);
    EXPECT_EQ(count_starting("Begin realization a.0"), 4);
}

/// What a custom trace handler saw of one event.
struct Event {
    std::string func;
    int event, parent, value_index, id;
    dsl_type_t type;
    std::vector<int> coordinates;
    std::vector<double> values;
};

std::mutex events_mutex;
std::vector<Event> events;

double element(const dsl_trace_event_t *e, int lane) {
    if (e->type.code == dsl_type_float) return static_cast<const float *>(e->value)[lane];
    return static_cast<const int32_t *>(e->value)[lane];
}

int32_t record(JITUserContext *, const dsl_trace_event_t *e) {
    std::lock_guard<std::mutex> lock(events_mutex);
    Event r{e->func, e->event, e->parent_id, e->value_index, 1000 + int(events.size()), e->type,
            {},      {}};
    r.coordinates.assign(e->coordinates, e->coordinates + e->dimensions);
    if (e->event == dsl_trace_load || e->event == dsl_trace_store) {
        for (int lane = 0; lane < e->type.lanes; lane++)
            r.values.push_back(element(e, lane));
    }
    events.push_back(r);
    return r.id;
}

const Event *first(int event, const std::string &func) {
    for (const Event &e : events) {
        if (e.event == event && e.func == func) return &e;
    }
    return nullptr;
}

int count(int event, const std::string &func) {
    int n = 0;
    for (const Event &e : events)
        n += e.event == event && e.func == func;
    return n;
}

// Halide's custom_trace: the events as structures, each nested in its parent by the id the
// handler returned for it.
TEST_F(Trace, CustomTraceGetsEventsNestedByTheirIds) {
    events.clear();
    Var x("x"), y("y");
    Func p("tp"), c("tc");
    p(x, y) = Tuple(x + 10 * y, cast<float>(x) * 0.5f);
    c(x, y) = p(x, y)[0] + cast<int>(p(x + 1, y)[1]);
    p.compute_at(c, y).trace_stores().trace_loads().trace_realizations();
    c.trace_stores();
    c.jit_handlers().custom_trace = record;
    Buffer<int> out = c.realize({3, 2});
    EXPECT_EQ(out(2, 1), 12 + 1);
    EXPECT_TRUE(lines.empty()) << "the handler replaces the lines";
    ASSERT_FALSE(events.empty());
    EXPECT_EQ(events.front().event, dsl_trace_begin_pipeline);
    EXPECT_EQ(events.front().func, "tc");
    EXPECT_EQ(events.back().event, dsl_trace_end_pipeline);
    EXPECT_EQ(events.back().parent, events.front().id);
    const int pipeline = events.front().id;
    // One realization of p per row of c: a row of four points.
    EXPECT_EQ(count(dsl_trace_begin_realization, "tp"), 2);
    const Event *realization = first(dsl_trace_begin_realization, "tp");
    ASSERT_NE(realization, nullptr);
    EXPECT_EQ(realization->parent, pipeline);
    EXPECT_EQ(realization->coordinates, (std::vector<int>{0, 4, 0, 1}));
    const Event *produce = first(dsl_trace_produce, "tp");
    ASSERT_NE(produce, nullptr);
    EXPECT_EQ(produce->parent, realization->id);
    const Event *consume = first(dsl_trace_consume, "tp");
    ASSERT_NE(consume, nullptr);
    EXPECT_EQ(consume->parent, realization->id);
    // p's stores are inside its production, both Tuple elements; its loads inside consumption.
    std::vector<const Event *> at_3_0;
    for (const Event &e : events) {
        if (e.event == dsl_trace_store && e.func == "tp" && e.coordinates == std::vector<int>{3, 0})
            at_3_0.push_back(&e);
    }
    ASSERT_EQ(at_3_0.size(), 2u);
    EXPECT_EQ(at_3_0[0]->parent, produce->id);
    EXPECT_EQ(at_3_0[0]->value_index, 0);
    EXPECT_EQ(at_3_0[0]->values, (std::vector<double>{3.0}));
    EXPECT_EQ(at_3_0[1]->value_index, 1);
    EXPECT_EQ(at_3_0[1]->type.code, dsl_type_float);
    EXPECT_EQ(at_3_0[1]->values, (std::vector<double>{1.5}));
    EXPECT_EQ(count(dsl_trace_store, "tp"), 2 * 4 * 2);
    EXPECT_EQ(count(dsl_trace_load, "tp"), 2 * 3 * 2);
    const Event *load = first(dsl_trace_load, "tp");
    ASSERT_NE(load, nullptr);
    EXPECT_EQ(load->parent, consume->id);
    // c has no realization events: its stores belong to the pipeline.
    const Event *store = first(dsl_trace_store, "tc");
    ASSERT_NE(store, nullptr);
    EXPECT_EQ(store->parent, pipeline);
    EXPECT_EQ(store->coordinates, (std::vector<int>{0, 0}));
    EXPECT_EQ(store->values, (std::vector<double>{0.0}));
    c.jit_handlers().custom_trace = nullptr;
}

// A vector store is one event: `lanes` values, and each coordinate once per lane.
TEST_F(Trace, VectorEventsHoldEveryLane) {
    events.clear();
    Var x("x"), y("y");
    Func g("tv");
    g(x, y) = x * 10 + y;
    g.vectorize(x, 4).trace_stores();
    JITUserContext context;
    context.handlers.custom_trace = record;
    g.realize(&context, {8, 2});
    ASSERT_EQ(count(dsl_trace_store, "tv"), 4);
    const Event *e = first(dsl_trace_store, "tv");
    EXPECT_EQ(e->type.lanes, 4);
    EXPECT_EQ(e->type.bits, 32);
    EXPECT_EQ(e->coordinates, (std::vector<int>{0, 1, 2, 3, 0, 0, 0, 0}));
    EXPECT_EQ(e->values, (std::vector<double>{0, 10, 20, 30}));
    // An event without a value has a handle type of no bits and no lanes, as Halide's.
    const Event *begin = first(dsl_trace_begin_pipeline, "tv");
    ASSERT_NE(begin, nullptr);
    EXPECT_EQ(begin->type.code, dsl_type_handle);
    EXPECT_EQ(begin->type.bits, 0);
    EXPECT_EQ(begin->type.lanes, 0);
}

// Without a JIT handler, the program's trace handler (dsl_set_trace_handler) gets the events;
// its ids nest them as well.
int32_t global_ids = 0;
std::vector<int> global_events;
int32_t global_handler(const dsl_trace_event_t *e) {
    std::lock_guard<std::mutex> lock(events_mutex);
    global_events.push_back(e->event);
    return ++global_ids;
}

TEST_F(Trace, TheProgramsTraceHandler) {
    global_events.clear();
    Var x("x");
    Func f("tg");
    f(x) = x;
    f.trace_realizations();
    dsl_set_trace_handler(global_handler);
    f.realize({4});
    dsl_set_trace_handler(nullptr);
    std::vector<int> expected = {dsl_trace_begin_pipeline,  dsl_trace_begin_realization,
                                 dsl_trace_produce,         dsl_trace_end_produce,
                                 dsl_trace_end_realization, dsl_trace_end_pipeline};
    EXPECT_EQ(global_events, expected);
    EXPECT_TRUE(lines.empty());
}

// Tags come first; an output's realization is its buffer.
TEST_F(Trace, TagsAndTheOutputsRealization) {
    Var x("x");
    Func f("tagged");
    f(x) = x;
    f.trace_realizations().add_trace_tag("first").add_trace_tag("then \"this\"");
    Buffer<int> out(3);
    out.set_min(2);
    f.realize(out);
    std::vector<std::string> expected = {"Begin pipeline tagged.0()\n",
                                         "Tag tagged.0() tag = \"first\"\n",
                                         "Tag tagged.0() tag = \"then \"this\"\"\n",
                                         "Begin realization tagged.0(2, 3)\n",
                                         "Produce tagged.0(2, 3)\n",
                                         "End produce tagged.0(2, 3)\n",
                                         "End realization tagged.0(2, 3)\n",
                                         "End pipeline tagged.0()\n"};
    EXPECT_EQ(lines, expected);
}

// A vector loop whose last vector is guarded keeps its stores in vectors; the events are
// those of the lanes stored, each once.
TEST_F(Trace, AGuardedVectorTailTracesTheLanesThatRun) {
    events.clear();
    Var x("x"), y("y");
    Func g("tguard");
    g(x, y) = x * 2 + y;
    g.vectorize(x, 4, TailStrategy::GuardWithIf).trace_stores();
    g.jit_handlers().custom_trace = record;
    Buffer<int> out = g.realize({6, 2});
    EXPECT_EQ(out(5, 1), 11);
    std::vector<int> stored(12, 0);
    for (const Event &e : events) {
        if (e.event != dsl_trace_store) continue;
        int lanes = e.type.lanes;
        for (int lane = 0; lane < lanes; lane++) {
            int xx = e.coordinates[lane], yy = e.coordinates[lanes + lane];
            ASSERT_TRUE(xx >= 0 && xx < 6 && yy >= 0 && yy < 2) << xx << ", " << yy;
            EXPECT_EQ(e.values[lane], xx * 2 + yy);
            stored[yy * 6 + xx]++;
        }
    }
    EXPECT_EQ(stored, std::vector<int>(12, 1));
}

}  // namespace
}  // namespace dsl
