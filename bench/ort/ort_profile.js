// ONNX Runtime's own per-node times on one model, to set beside `DSL_NN_PROFILE=1 dsl-onnx
// bench` kernel by kernel:
//   node ort_profile.js MODEL NAME=AxBxCxD THREADS RUNS [TOP]
// The session is ort_bench.js's (graph optimisation "all", sequential execution,
// `intraOpNumThreads` THREADS, the same seeded inputs) with ORT's profiler on; its trace (a JSON
// file in the system's temporary folder, removed afterwards) is summed here. Prints the time of
// each operator type, then the TOP (default 30) slowest nodes with their input and output
// shapes: median over RUNS runs after the first, in ms. ORT names nodes after its graph
// rewrites (a Conv fused with its activation, layouts changed to NCHWc with Reorder nodes).
'use strict';
const fs = require('fs');
const os = require('os');
const path = require('path');
const {seededFeeds} = require('./inputs');
const dir = process.env.DSL_ORT_DIR;
const ort = require(dir ? path.resolve(dir, 'node_modules', 'onnxruntime-node') : 'onnxruntime-node');

function median(values) {
    const v = values.slice().sort((a, b) => a - b);
    return v[v.length >> 1];
}

function shapes(list) {
    return (list || []).map((o) => JSON.stringify(Object.values(o)[0])).join(' ');
}

async function main() {
    const [model, spec, threadsArg, runsArg, topArg] = process.argv.slice(2);
    if (!model || !spec || !spec.includes('=')) {
        console.error('usage: node ort_profile.js MODEL NAME=AxBxCxD THREADS RUNS [TOP]');
        process.exit(2);
    }
    const [name, dims] = spec.split('=');
    const shape = dims.split('x').map(Number);
    const threads = Number(threadsArg || 1), runs = Math.max(2, Number(runsArg || 6));
    const top = Number(topArg || 30);
    const prefix = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'ort-profile-')), 'trace');
    const session = await ort.InferenceSession.create(model, {
        intraOpNumThreads: threads,
        interOpNumThreads: 1,
        graphOptimizationLevel: 'all',
        executionMode: 'sequential',
        enableProfiling: true,
        profileFilePrefix: prefix,
    });
    const feeds = seededFeeds(ort, name, shape);
    for (let r = 0; r < runs; r++) await session.run(feeds);
    await session.release();  // writes the trace
    const traceDir = path.dirname(prefix);
    const file = fs.readdirSync(traceDir).find((f) => f.endsWith('.json'));
    if (!file) throw new Error('ONNX Runtime wrote no profile');
    const events = JSON.parse(fs.readFileSync(path.join(traceDir, file), 'utf8'));
    fs.rmSync(traceDir, {recursive: true, force: true});

    const nodes = new Map();
    for (const e of events) {
        if (e.cat !== 'Node' || !e.name.endsWith('_kernel_time')) continue;
        const key = e.name.slice(0, -'_kernel_time'.length);
        if (!nodes.has(key)) {
            nodes.set(key, {op: e.args.op_name, times: [], inputs: shapes(e.args.input_type_shape),
                            outputs: shapes(e.args.output_type_shape)});
        }
        nodes.get(key).times.push(e.dur / 1000);
    }
    const rows = [];
    const byOp = new Map();
    let total = 0;
    for (const [key, v] of nodes) {
        const t = median(v.times.slice(1));  // the first run allocates
        rows.push({key, t, ...v});
        byOp.set(v.op, (byOp.get(v.op) || 0) + t);
        total += t;
    }
    console.log(`ort profile: ${rows.length} nodes, ${total.toFixed(3)} ms (medians of ${runs - 1} runs)`);
    for (const [op, t] of [...byOp].sort((a, b) => b[1] - a[1]))
        console.log(`  ${t.toFixed(3).padStart(9)} ms  ${op}`);
    rows.sort((a, b) => b.t - a.t);
    for (const r of rows.slice(0, top))
        console.log(`${r.t.toFixed(3).padStart(9)} ms  ${r.op} "${r.key}" ${r.inputs} -> ${r.outputs}`);
}
main().catch((e) => {
    console.error(`ort_profile: ${e.message}`);
    process.exit(1);
});
