import tailwindcss from '@tailwindcss/vite';
import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

const api = 'http://127.0.0.1:3000';

export default defineConfig({
  plugins: [react(), tailwindcss()],
  server: {
    port: 5173,
    // *.localhost names choose the variant, as on the real server.
    allowedHosts: ['.localhost'],
    proxy: { '/api': api, '/healthz': api, '/readyz': api, '/dev': api },
  },
  build: {
    target: 'es2022',
    sourcemap: true,
    chunkSizeWarningLimit: 400,
  },
});
