throw new Error("Throw throw throw your boat");
