"""What every optimizer shares: state in Variables, None gradients, the checks of the pairs,
tracing, and Keras 3's clipping and weight decay."""
import warnings

import numpy as np
import pytest

import tapekit as tk
from tapekit import optimizers

from .steps import GRADS, START


def test_state_lives_in_variables():
    var = tk.Variable([1.0, 2.0])
    opt = optimizers.Adam()
    assert opt.iterations.numpy() == 0
    opt.apply_gradients([(tk.constant([0.1, 0.2]), var)])
    opt.apply_gradients([(tk.constant([0.1, 0.2]), var)])
    assert opt.iterations.numpy() == 2 and opt.iterations.dtype == tk.int64
    assert all(isinstance(v, tk.Variable) and not v.trainable for v in opt.variables)
    assert [v.name for v in opt.variables] == [
        "Adam/iteration:0", "Adam/learning_rate:0", "Adam/Variable/momentum:0",
        "Adam/Variable/velocity:0"]
    opt.learning_rate = 0.5
    assert opt.learning_rate.numpy() == 0.5


def test_none_gradients_are_skipped_with_a_warning_naming_the_variable():
    x, y = tk.Variable(2.0, name="x"), tk.Variable(3.0, name="y")
    with tk.GradientTape() as tape:
        loss = x * x
    grads = tape.gradient(loss, [x, y])
    with pytest.warns(UserWarning, match=r"Gradients do not exist for variables \['y:0'\]"):
        optimizers.SGD(0.1).apply_gradients(zip(grads, [x, y]))
    assert (x.numpy(), y.numpy()) == (np.float32(1.6), 3.0)


def test_all_none_gradients_are_an_error():
    x, y = tk.Variable(2.0, name="x"), tk.Variable(3.0, name="y")
    with pytest.raises(ValueError, match=r"No gradients provided for any variable: \['x:0', 'y:0'\]"):
        optimizers.Adam().apply_gradients(zip([None, None], [x, y]))


def test_a_tensor_in_place_of_the_variable_is_refused():
    with pytest.raises(TypeError, match="tk.Variable"):
        optimizers.SGD().apply_gradients([(tk.constant(1.0), tk.constant(2.0))])


@pytest.mark.parametrize("make", [lambda: optimizers.SGD(0.1, momentum=0.9, nesterov=True),
                                  lambda: optimizers.Adam(0.01),
                                  lambda: optimizers.RMSprop(0.01, momentum=0.5, centered=True)])
def test_a_traced_step_equals_the_eager_one(make):
    def step(var, opt, g):
        opt.apply_gradients([(g, var)])
    results = []
    for traced in (False, True):
        var, opt = tk.Variable(START, dtype=np.float32), make()
        fn = tk.function(step) if traced else step
        for k, g in enumerate(GRADS):
            if k == 3:
                opt.learning_rate = 0.02   # a traced step reads the new rate
            fn(var, opt, tk.constant(g.astype(np.float32)))
        results.append((var.numpy(), opt.iterations.numpy()))
    np.testing.assert_array_equal(results[0][0], results[1][0])
    assert results[0][1] == results[1][1] == len(GRADS)
    assert fn.trace_count == 2     # the slots are made in the first call: TF traces it twice


def test_no_warning_for_complete_gradients():
    var = tk.Variable(1.0)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        optimizers.SGD().apply_gradients([(tk.constant(1.0), var)])


def test_apply_gradients_refuses_an_integer_gradient():
    w = tk.Variable([1.0, 2.0], name="w")
    with pytest.raises(TypeError, match=r"SGD\.apply_gradients.*'w:0' \(float32\).*dtype int32"):
        tk.optimizers.SGD(0.1).apply_gradients([(tk.constant([1, 1]), w)])
    np.testing.assert_array_equal(w.numpy(), [1.0, 2.0])


@pytest.mark.parametrize("kw, a_after, b_after", [
    # Keras 3.15 on TF 2.21 gives these (SGD(0.5), a = [1, 2] with grads [3, 4] then [0.3, 0];
    # b = 3 with grad -2 then None). By hand: clipnorm=1 scales [3, 4] to [0.6, 0.8] and -2 to
    # -1; clipvalue=0.5 clips each entry; global_clipnorm=1 scales both by 1/sqrt(29); weight
    # decay 0.1 first takes w * 0.1 * 0.5 off each variable that has a gradient.
    ({"clipnorm": 1.0}, [0.55, 1.6], 3.5),
    ({"clipvalue": 0.5}, [0.6, 1.75], 3.25),
    ({"global_clipnorm": 1.0}, [1 - 1.5 / 29 ** 0.5 - 0.15, 2 - 2 / 29 ** 0.5], 3 + 1 / 29 ** 0.5),
    ({"weight_decay": 0.1}, [(1 * 0.95 - 1.5) * 0.95 - 0.15, (2 * 0.95 - 2) * 0.95], 3 * 0.95 + 1),
])
def test_clipping_and_weight_decay_as_keras(kw, a_after, b_after):
    opt = optimizers.SGD(0.5, **kw)
    a, b = tk.Variable([1.0, 2.0]), tk.Variable(3.0)
    opt.apply_gradients([(tk.constant([3.0, 4.0]), a), (tk.constant(-2.0), b)])
    with pytest.warns(UserWarning, match="Gradients do not exist"):
        opt.apply_gradients([(tk.constant([0.3, 0.0]), a), (None, b)])
    np.testing.assert_allclose(a.numpy(), a_after, rtol=1e-6)
    np.testing.assert_allclose(float(b.numpy()), b_after, rtol=1e-6)
    assert opt.get_config()[next(iter(kw))] == next(iter(kw.values()))
    assert type(opt).from_config(opt.get_config()).get_config() == opt.get_config()


def test_adam_weight_decay_inside_tk_function_and_one_clip_only():
    # Adam(0.1, weight_decay=0.5): w = 2 decays to 2 - 2 * 0.5 * 0.1 = 1.9, then Adam's first
    # step takes 0.1 off (alpha = 0.1 sqrt(0.001) / 0.1 times m / sqrt(v) = 0.1 g / (sqrt(0.001) g)),
    # and so does the second with the same gradient.
    w = tk.Variable(2.0)
    opt = optimizers.Adam(0.1, weight_decay=0.5)
    step = tk.function(lambda g: opt.apply_gradients([(g, w)]))
    step(tk.constant(3.0))
    assert float(w.numpy()) == pytest.approx(1.8, rel=1e-5)
    step(tk.constant(3.0))                      # the replay decays the new w: 1.8 * 0.95 - 0.1
    assert float(w.numpy()) == pytest.approx(1.8 * 0.95 - 0.1, rel=1e-5)
    with pytest.raises(ValueError, match="only one of clipnorm, clipvalue and global_clipnorm"):
        optimizers.RMSprop(clipnorm=1.0, clipvalue=0.5)
    with pytest.raises(ValueError, match="weight_decay must be >= 0"):
        optimizers.SGD(weight_decay=-1.0)


def test_optimizer_names_follow_keras_3s_rule():
    """Issue 43, Keras 3.15: an optimizer takes any name without "/" ("优化 器", "" too; its
    variables' names start with it); "/" or a name that is no string is Keras's ValueError."""
    opt = optimizers.Adam(0.1, name="优化 器")
    assert opt.name == "优化 器" and opt.iterations.name == "优化 器/iteration:0"
    var = tk.Variable([1.0])
    opt.apply_gradients([(tk.constant([0.5]), var)])
    assert all(s.name.startswith("优化 器/") for s in opt.variables if s is not opt.iterations)
    assert optimizers.SGD(name="").name == "" and optimizers.SGD(name=None).name == "sgd"
    for bad in ("a/b", 3):
        with pytest.raises(ValueError, match=r"SGD\(name=\.\.\.\): Argument `name` must be a "
                                             r"string and cannot contain character `/`"):
            optimizers.SGD(name=bad)


def test_assign_helpers_write_the_variable_as_keras_3s_do():
    # Keras 3.15: optimizer.assign(w, 3.0); assign_add(w, 2.0) -> 5.0 (each returns None)
    w = tk.Variable([1.0, 2.0])
    opt = tk.optimizers.SGD()
    assert opt.assign(w, [3.0, 3.0]) is None
    assert opt.assign_add(w, [2.0, 1.0]) is None and w.numpy().tolist() == [5.0, 4.0]
    assert opt.assign_sub(w, [1.0, 1.0]) is None and w.numpy().tolist() == [4.0, 3.0]
