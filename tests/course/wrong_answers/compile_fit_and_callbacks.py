# A plausible wrong answer: the accuracy is checked after every batch, where the logs hold
# the running accuracy of an epoch not yet finished.
class StopAtAccuracy(tk.callbacks.Callback):
    def __init__(self, target):
        super().__init__()
        self.target = target

    def on_train_batch_end(self, batch, logs=None):
        if logs["accuracy"] >= self.target:
            self.model.stop_training = True
