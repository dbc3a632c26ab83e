"""Training the card reader (needs the training environment: `make train-env`). Nothing here is
imported at run time; the run time uses the exported ONNX models with onnxruntime."""
