#!/usr/bin/env python3
"""The own-model example's exporter, run on plain PyTorch, and its model's float64 forward pass (not run in CI).

examples/own-model/export_model.py --from torch writes model.pt (torch.save of the state_dict under
TransformerLens 4's names, float32) and model.json (headlab's small config); this script runs that
exporter with seed 0 into this folder and writes reference.json: {"script_sha256": the exporter's
SHA-256 (tests/unit/fixtures.test.mjs fails when the exporter changes and this was not rerun),
"prompt": [...], "logits": T × V}, the logits of the exporter's own torch module in float64 on the
float32 weights it wrote (each float32 value is exact in float64, so the core's forward pass on the
files must agree to summation order).
Regenerate: /usr/bin/python3 tests/data/export/make_fixtures.py
"""
import hashlib
import importlib.util
import json
import os

import torch

HERE = os.path.dirname(os.path.abspath(__file__))
SCRIPT = os.path.join(HERE, "../../../examples/own-model/export_model.py")


def main():
    spec = importlib.util.spec_from_file_location("export_model", SCRIPT)
    exporter = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(exporter)
    model = exporter.build_torch(0)
    exporter.export(model, HERE, config=exporter.small_config(**exporter.SIZES))
    prompt = [3, 1, 4, 1, 5, 9, 2, 6, 5, 3]
    with torch.no_grad():
        logits = model.double()(torch.tensor(prompt))
    with open(SCRIPT, "rb") as f:
        digest = hashlib.sha256(f.read()).hexdigest()
    with open(os.path.join(HERE, "reference.json"), "w") as f:
        json.dump({"script_sha256": digest, "prompt": prompt, "logits": logits.tolist()}, f)
        f.write("\n")


if __name__ == "__main__":
    main()
