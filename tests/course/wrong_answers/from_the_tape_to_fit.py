# A plausible wrong answer: test_step averages the batch losses without weighting them
# by batch size, so a short last batch counts as much as a full one.
class EvaluatedMLP(tk.Model):
    def __init__(self, clip_norm=1.0, **kwargs):
        super().__init__(**kwargs)
        self.hidden = tk.layers.Dense(32, activation="relu")
        self.scores = tk.layers.Dense(3)
        self.clip_norm = clip_norm
        self.loss_fn = tk.losses.SparseCategoricalCrossentropy(from_logits=True)
        self.loss_tracker = tk.metrics.Mean(name="loss")
        self.accuracy_metric = tk.metrics.SparseCategoricalAccuracy(name="accuracy")

    def call(self, inputs, training=None):
        return self.scores(self.hidden(inputs))

    @property
    def metrics(self):
        return [self.loss_tracker, self.accuracy_metric]

    def train_step(self, data):
        x, y = data
        with tk.GradientTape() as tape:
            logits = self(x, training=True)
            loss = self.loss_fn(y, logits)
        gradients = tape.gradient(loss, self.trainable_variables)
        gradients, _ = tk.clip_by_global_norm(gradients, self.clip_norm)
        self.optimizer.apply(gradients, self.trainable_variables)
        self.loss_tracker.update_state(loss)
        self.accuracy_metric.update_state(y, logits)
        return {m.name: m.result() for m in self.metrics}

    def test_step(self, data):
        x, y = data
        logits = self(x, training=False)
        self.loss_tracker.update_state(self.loss_fn(y, logits))
        self.accuracy_metric.update_state(y, logits)
        return {m.name: m.result() for m in self.metrics}
