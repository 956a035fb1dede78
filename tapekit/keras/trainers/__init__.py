"""Training (Keras 3's keras/src/trainers/): `Trainer`, the compile/fit/evaluate/predict that
`Model` inherits (trainer.py); the CompileLoss and CompileMetrics a compiled model holds
(compile_utils.py); what fit accepts as data (data_adapter.py) and its batches, epoch by epoch
(epoch_iterator.py). No public names of its own: `Model.fit` and friends are the API."""
