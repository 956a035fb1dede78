"""compile, fit, evaluate and predict: Keras 3's training surface as a plain loop over the tape.

`Trainer` is mixed into `Model` (and so `Sequential`). `train_step` is the override point.
"""


class Trainer:
    """compile / fit / evaluate / predict / train_step / test_step / predict_step."""
