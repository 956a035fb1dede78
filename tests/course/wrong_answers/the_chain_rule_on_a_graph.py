# A student's answer: p's gradient from the exp only; the second use of p (the add) forgotten.
p = x0 * y0
dg_dp = np.exp(p)
dg_dx, dg_dy = dg_dp * y0, dg_dp * x0
