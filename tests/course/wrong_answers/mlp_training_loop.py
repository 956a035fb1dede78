# A student who keeps the variables themselves, not copies of their values: the list then
# follows the weights to the end of training.
mse = tk.losses.MeanSquaredError()
opt = tk.optimizers.Adam(learning_rate=0.01)
val_losses = []
for epoch in range(100):
    with tk.GradientTape() as tape:
        loss = mse(y_tr, model_es(x_tr, training=True))
    grads = tape.gradient(loss, model_es.trainable_variables)
    opt.apply_gradients(zip(grads, model_es.trainable_variables))
    val_losses.append(float(mse(y_va, model_es(x_va))))
    if val_losses[-1] == min(val_losses):
        best_weights = list(model_es.trainable_variables)
best_epoch = int(np.argmin(val_losses)) + 1
