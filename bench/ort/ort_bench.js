// Times ONNX Runtime (npm onnxruntime-node, the peer of the NN layer) on one model:
//   node ort_bench.js MODEL NAME=AxBxCxD THREADS RUNS
// Inputs are seeded pseudo-random floats in [-1, 1); graph optimisation "all", sequential
// execution, `intraOpNumThreads` THREADS. Prints one line:
//   ort MODEL SHAPE threads N: median X ms best Y ms load Z ms peak resident R MiB (S MiB ...)
// R is the process's peak resident memory (Node.js's included), S the part before the model.
// bench/nn_vs_ort.sh runs it beside `dsl-onnx bench`. NODE_PATH (or DSL_ORT_DIR) finds the
// package; scripts/setup.sh installs it into build/peers/ort with DSL_BENCH_PEERS=1.
'use strict';
const path = require('path');
const {seededFeeds} = require('./inputs');
const dir = process.env.DSL_ORT_DIR;
const ort = require(dir ? path.resolve(dir, 'node_modules', 'onnxruntime-node') : 'onnxruntime-node');

async function main() {
    const [model, spec, threadsArg, runsArg] = process.argv.slice(2);
    if (!model || !spec || !spec.includes('=')) {
        console.error('usage: node ort_bench.js MODEL NAME=AxBxCxD THREADS RUNS');
        process.exit(2);
    }
    const [name, dims] = spec.split('=');
    const shape = dims.split('x').map(Number);
    const threads = Number(threadsArg || 1), runs = Number(runsArg || 20);
    const residentAtStart = process.memoryUsage().rss / 1048576;
    const t0 = process.hrtime.bigint();
    const session = await ort.InferenceSession.create(model, {
        intraOpNumThreads: threads,
        interOpNumThreads: 1,
        graphOptimizationLevel: 'all',
        executionMode: 'sequential',
    });
    const load = Number(process.hrtime.bigint() - t0) / 1e6;
    const feeds = seededFeeds(ort, name, shape);
    await session.run(feeds);  // the first run allocates
    const times = [];
    for (let r = 0; r < runs; r++) {
        const start = process.hrtime.bigint();
        await session.run(feeds);
        times.push(Number(process.hrtime.bigint() - start) / 1e6);
    }
    times.sort((a, b) => a - b);
    console.log(`ort ${path.basename(model)} ${dims} threads ${threads}: median ` +
                `${times[times.length >> 1].toFixed(2)} ms best ${times[0].toFixed(2)} ms ` +
                `load ${load.toFixed(0)} ms peak resident ` +
                `${(process.resourceUsage().maxRSS / 1024).toFixed(1)} MiB ` +
                `(${residentAtStart.toFixed(1)} MiB before loading the model)`);
}
main().catch((e) => {
    console.error(`ort_bench: ${e.message}`);
    process.exit(1);
});
