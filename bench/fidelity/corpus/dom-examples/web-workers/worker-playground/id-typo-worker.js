var foo = 1;
fo++;
