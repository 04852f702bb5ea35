// ONNX Runtime's int8 CPU execution of an exported QDQ model (onnxruntime-node),
// run by ort_quantized_models.py:
//   node ort_quantized_models.js MODEL.onnx INPUT.bin BATCH TARGET_S THREADS RESULT.bin
// Loads the model with every graph optimization (ORT fuses the QuantizeLinear /
// DequantizeLinear pairs into QLinearConv, QLinearAdd, QGemm), times session.run
// with ember_bench's policy (peer_timing.py: 2 warmups, then >= 5 runs and
// TARGET_S seconds, or 3 runs and 2 s), writes the float32 logits to RESULT.bin and
// prints {"median_s", "min_s", "reps", "onnxruntime"}.
'use strict';
const fs = require('fs');
const path = require('path');

const ortDir = process.env.EMBER_ORT_DIR;
const ort = require(ortDir ? path.join(ortDir, 'node_modules', 'onnxruntime-node') : 'onnxruntime-node');

async function main() {
  const [modelPath, inputPath, batchArg, targetArg, threadsArg, resultPath] = process.argv.slice(2);
  const batch = Number(batchArg);
  const targetS = Number(targetArg);
  const session = await ort.InferenceSession.create(modelPath, {
    executionProviders: ['cpu'],
    graphOptimizationLevel: 'all',
    intraOpNumThreads: Number(threadsArg),
    interOpNumThreads: 1,
    executionMode: 'sequential',
  });
  const bytes = fs.readFileSync(inputPath);
  const data = new Float32Array(bytes.buffer, bytes.byteOffset, bytes.length / 4);
  const feeds = {[session.inputNames[0]]: new ort.Tensor('float32', data, [batch, 3, 224, 224])};
  const call = async () => (await session.run(feeds))[session.outputNames[0]];
  let out;
  for (let i = 0; i < 2; i++) out = await call();
  const times = [];
  for (;;) {
    const t0 = process.hrtime.bigint();
    out = await call();
    times.push(Number(process.hrtime.bigint() - t0) / 1e9);
    const total = times.reduce((a, b) => a + b, 0);
    if ((times.length >= 5 && total >= targetS) || (times.length >= 3 && total >= 2.0)) break;
  }
  fs.writeFileSync(resultPath, Buffer.from(out.data.buffer, out.data.byteOffset, out.data.byteLength));
  const sorted = [...times].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  const median = sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
  console.log(JSON.stringify({median_s: median, min_s: sorted[0], reps: times.length,
                              onnxruntime: ort.env.versions.node}));
}

main().catch((e) => {
  console.log(JSON.stringify({skip: `onnxruntime-node: ${String(e.message || e).split('\n')[0]}`}));
});
