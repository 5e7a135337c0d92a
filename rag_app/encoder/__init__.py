"""The e5 model as files: built offline from packaged weights, exported to ONNX and run there."""
