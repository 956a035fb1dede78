"""TensorFlow's guide "Introduction to modules, layers, and models" on tapekit (issue 23).

Cells of tensorflow/docs site/en/guide/intro_to_modules.ipynb (numbered as
tools/guides/extract.py prints them) re-stated in our own code; the expected outputs come
from NumPy on the same (random) weights. Checkpoints, SavedModel, TensorBoard and .keras
files (cells 22-28, 35-46, 75-79) are out of scope.
"""
import numpy as np
import pytest

import tapekit as tk


def missing(name):
    return pytest.mark.xfail(strict=True, reason=f"issue 23: {name} missing")


def relu(a):
    return np.maximum(a, 0)


class SimpleModule(tk.Module):
    # intro_to_modules.ipynb cell 7
    def __init__(self, name=None):
        super().__init__(name=name)
        self.a_variable = tk.Variable(5.0, name="train_me")
        self.non_trainable_variable = tk.Variable(5.0, trainable=False, name="do_not_train_me")

    def __call__(self, x):
        return self.a_variable * x + self.non_trainable_variable


class Dense(tk.Module):
    # intro_to_modules.ipynb cell 11
    def __init__(self, in_features, out_features, name=None):
        super().__init__(name=name)
        self.w = tk.Variable(tk.random.normal([in_features, out_features]), name="w")
        self.b = tk.Variable(tk.zeros([out_features]), name="b")

    def __call__(self, x):
        return tk.nn.relu(tk.matmul(x, self.w) + self.b)


class SequentialModule(tk.Module):
    # intro_to_modules.ipynb cell 13
    def __init__(self, name=None):
        super().__init__(name=name)
        self.dense_1 = Dense(in_features=3, out_features=3)
        self.dense_2 = Dense(in_features=3, out_features=2)

    def __call__(self, x):
        return self.dense_2(self.dense_1(x))


def _expected(model, x):
    h = relu(np.asarray(x, np.float32) @ model.dense_1.w.numpy() + model.dense_1.b.numpy())
    return relu(h @ model.dense_2.w.numpy() + model.dense_2.b.numpy())


def test_simple_module():
    # intro_to_modules.ipynb cells 7, 9: 5 * 5 + 5 = 30; one trainable of two variables
    m = SimpleModule(name="simple")
    assert m(tk.constant(5.0)).numpy() == 30.0
    assert [v.name for v in m.trainable_variables] == ["train_me:0"]
    assert [v.name for v in m.variables] == ["train_me:0", "do_not_train_me:0"]


def test_sequential_module():
    # intro_to_modules.ipynb cells 13-16: two submodules; variables b, w of each, in order
    my_model = SequentialModule(name="the_model")
    out = my_model(tk.constant([[2.0, 2.0, 2.0]]))
    np.testing.assert_allclose(out.numpy(), _expected(my_model, [[2.0, 2.0, 2.0]]), rtol=1e-5)
    assert list(my_model.submodules) == [my_model.dense_1, my_model.dense_2]
    assert [(v.name, v.shape) for v in my_model.variables] == [
        ("b:0", (3,)), ("w:0", (3, 3)), ("b:0", (2,)), ("w:0", (3, 2))]


def test_waiting_to_create_variables():
    # intro_to_modules.ipynb cells 18-19: variables made on the first call, from x.shape[-1]
    class FlexibleDenseModule(tk.Module):
        def __init__(self, out_features, name=None):
            super().__init__(name=name)
            self.is_built, self.out_features = False, out_features

        def __call__(self, x):
            if not self.is_built:
                self.w = tk.Variable(tk.random.normal([x.shape[-1], self.out_features]), name="w")
                self.b = tk.Variable(tk.zeros([self.out_features]), name="b")
                self.is_built = True
            return tk.nn.relu(tk.matmul(x, self.w) + self.b)

    class MySequentialModule(tk.Module):
        def __init__(self, name=None):
            super().__init__(name=name)
            self.dense_1 = FlexibleDenseModule(out_features=3)
            self.dense_2 = FlexibleDenseModule(out_features=2)

        def __call__(self, x):
            return self.dense_2(self.dense_1(x))

    my_model = MySequentialModule(name="the_model")
    out = my_model(tk.constant([[2.0, 2.0, 2.0]]))
    assert out.shape == (1, 2) and my_model.dense_2.w.shape == (3, 2)
    np.testing.assert_allclose(out.numpy(), _expected(my_model, [[2.0, 2.0, 2.0]]), rtol=1e-5)


def test_function_decorated_call():
    # intro_to_modules.ipynb cells 31, 33: tk.function on __call__, a list input, rank 2 and 3
    class MySequentialModule(SequentialModule):
        @tk.function
        def __call__(self, x):
            return self.dense_2(self.dense_1(x))

    my_model = MySequentialModule(name="the_model")
    want = _expected(my_model, [[2.0, 2.0, 2.0]])
    np.testing.assert_allclose(my_model([[2.0, 2.0, 2.0]]).numpy(), want, rtol=1e-5)
    out3 = my_model([[[2.0, 2.0, 2.0], [2.0, 2.0, 2.0]]])
    assert out3.shape == (1, 2, 2)
    np.testing.assert_allclose(out3.numpy()[0], np.vstack([want, want]), rtol=1e-5)


class MyDense(tk.keras.layers.Layer):
    # intro_to_modules.ipynb cell 53: variables made in __init__; call() takes no `training`
    def __init__(self, in_features, out_features, **kwargs):
        super().__init__(**kwargs)
        self.w = tk.Variable(tk.random.normal([in_features, out_features]), name="w")
        self.b = tk.Variable(tk.zeros([out_features]), name="b")

    def call(self, x):
        return tk.nn.relu(tk.matmul(x, self.w) + self.b)


class FlexibleDense(tk.keras.layers.Layer):
    # intro_to_modules.ipynb cell 57: variables made in build(input_shape)
    def __init__(self, out_features, **kwargs):
        super().__init__(**kwargs)
        self.out_features = out_features

    def build(self, input_shape):
        self.w = tk.Variable(tk.random.normal([input_shape[-1], self.out_features]), name="w")
        self.b = tk.Variable(tk.zeros([self.out_features]), name="b")

    def call(self, inputs):
        return tk.matmul(inputs, self.w) + self.b


def test_keras_layer():
    # intro_to_modules.ipynb cell 55 (a tensor input: Keras 3 refuses a bare list there)
    simple_layer = MyDense(name="simple", in_features=3, out_features=3)
    x = tk.constant([[2.0, 2.0, 2.0]])
    want = relu(x.numpy() @ simple_layer.w.numpy())
    np.testing.assert_allclose(simple_layer(x).numpy(), want, rtol=1e-5)


def test_build_step_no_variables_before_call():
    # intro_to_modules.ipynb cell 59: nothing built yet (Keras 3 prints [], a list)
    assert len(FlexibleDense(out_features=3).variables) == 0


def test_build_step():
    # intro_to_modules.ipynb cells 61, 62: built on the first call, from the last input axis
    flexible_dense = FlexibleDense(out_features=3)
    x = tk.constant([[2.0, 2.0, 2.0], [3.0, 3.0, 3.0]])
    out = flexible_dense(x)
    np.testing.assert_allclose(out.numpy(), x.numpy() @ flexible_dense.w.numpy(), rtol=1e-5)
    # For the lead: TensorFlow 2.21 + Keras 3.15 print [] for these variables (Keras 3 does not
    # track a tf.Variable attribute of a Layer/Model); the guide's text expects them tracked.
    assert [v.shape for v in flexible_dense.variables] == [(3, 3), (3,)]


def test_build_step_wrong_width():
    # intro_to_modules.ipynb cell 64: once built for width 3, a width-4 input fails
    flexible_dense = FlexibleDense(out_features=3)
    flexible_dense(tk.constant([[2.0, 2.0, 2.0]]))
    with pytest.raises(tk.errors.InvalidArgumentError):
        flexible_dense(tk.constant([[2.0, 2.0, 2.0, 2.0]]))


def test_keras_model_subclass():
    # intro_to_modules.ipynb cells 66, 68: two FlexibleDense layers, four variables
    class MySequentialModel(tk.keras.Model):
        def __init__(self, name=None, **kwargs):
            super().__init__(**kwargs)
            self.dense_1 = FlexibleDense(out_features=3)
            self.dense_2 = FlexibleDense(out_features=2)

        def call(self, x):
            return self.dense_2(self.dense_1(x))

    m = MySequentialModel(name="the_model")
    x = tk.constant([[2.0, 2.0, 2.0]])
    out = m(x)
    want = (x.numpy() @ m.dense_1.w.numpy()) @ m.dense_2.w.numpy()
    np.testing.assert_allclose(out.numpy(), want, rtol=1e-5)
    # For the lead: TensorFlow 2.21 + Keras 3.15 print [] for these variables (Keras 3 does not
    # track a tf.Variable attribute of a Layer/Model); the guide's text expects them tracked.
    assert sorted(v.shape for v in m.variables) == [(2,), (3,), (3, 2), (3, 3)]


def test_register_keras_serializable():
    # intro_to_modules.ipynb cell 66 decorates the model class (import keras -> tapekit);
    # Keras 3 registers it as "Custom>ClassName" and returns the class itself
    @tk.saving.register_keras_serializable()
    class Registered(tk.keras.layers.Layer):
        pass

    assert isinstance(Registered, type) and Registered.__name__ == "Registered"
    assert tk.keras.saving.get_registered_name(Registered) == "Custom>Registered"
    assert tk.keras.saving.get_registered_object("Custom>Registered") is Registered


def test_functional_model():
    # intro_to_modules.ipynb cells 71, 72: Input(shape=[3]) -> FlexibleDense(3) -> (2)
    inputs = tk.keras.Input(shape=[3])
    l1, l2 = FlexibleDense(3), FlexibleDense(2)
    model = tk.keras.Model(inputs=inputs, outputs=l2(l1(inputs)))
    model.summary()
    x = tk.constant([[2.0, 2.0, 2.0]])
    want = (x.numpy() @ l1.w.numpy()) @ l2.w.numpy()
    np.testing.assert_allclose(model(x).numpy(), want, rtol=1e-5)
