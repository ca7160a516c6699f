// Not read by the build: Tailwind 4 takes its theme from the @theme block of src/styles.css and finds
// the sources itself; a config counts only when the CSS names it with @config, which ours does not.
// Kept for editor tools that still look for a config: keep the brand colours equal to @theme's.
export default {
  content: ['./index.html', './src/**/*.{ts,tsx}'],
  theme: {
    extend: {
      colors: { brand: { DEFAULT: '#0b5c4b', dark: '#07392f', light: '#e6f2ef' } },
    },
  },
};
