#version 100
// Instanced unit fragment shader: the color is lit per vertex (flat normals,
// so every vertex of a triangle carries the same value).
precision mediump float;

varying vec3 v_color;

void main() {
    gl_FragColor = vec4(v_color, 1.0);
}
