# A plausible wrong answer: test_step averages the batch losses without weighting them
# by batch size, so a short last batch counts as much as a full one.
class EvaluatedMLP(ClippedMLP):
    def test_step(self, data):
        x, y = data
        logits = self(x, training=False)
        self.loss_tracker.update_state(self.loss_fn(y, logits))
        self.accuracy_metric.update_state(y, logits)
        return {m.name: m.result() for m in self.metrics}
