# A student who clips each tensor by its own norm (tk.clip_by_norm's rule), not by the
# norm of all of them together.
def clip_global(gradients, clip_norm):
    out = []
    for g in gradients:
        a = np.asarray(g.numpy(), dtype=np.float64)
        norm = np.sqrt(np.sum(a ** 2))
        out.append(a * (clip_norm / norm) if norm > clip_norm else a)
    return out


small_step = clip_global([tk.constant([3.0, 4.0]), tk.constant([12.0])], 1.0)
