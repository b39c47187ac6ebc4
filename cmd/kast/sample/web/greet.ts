// The sample's TypeScript side.
export function greet(name: string): string {
  return `hi ${name}`;
}

export const greetings = ["kast", "editor"].map(greet);
