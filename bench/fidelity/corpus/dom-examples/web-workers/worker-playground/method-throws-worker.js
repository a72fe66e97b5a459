function workerMethod() {
  throw new Error("Hey! Don't call me!");
}
