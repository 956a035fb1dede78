# A student who checks only that the activations do not explode (forgets the lower bound).
def stays_in_range(x, s):
    tk.random.set_seed(1)
    h = x
    for _ in range(20):
        h = tk.layers.Dense(64, activation="relu",
                            kernel_initializer=tk.initializers.RandomNormal(stddev=s))(h)
        if float(tk.math.reduce_std(h)) > 10:
            return False
    return True


tk.random.set_seed(0)
x = tk.random.normal((64, 64))
good_scales = [float(s) for s in np.round(np.arange(0.15, 0.225, 0.005), 3) if stays_in_range(x, s)]
print(good_scales)
